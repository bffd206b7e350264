package pageproc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
)

// Bounds on the ids one page brings: each linked id is an advisory lock in
// the page's write (store.StorePage) and a stub page. A paper declares a
// handful about itself (its DOI, PMID, arXiv id).
const (
	maxOwnIDs    = 16  // ids a page declares about itself, the first ones kept
	maxLinkedIDs = 200 // works a page registers as cited
)

// What a page's metadata keeps of what a page or an academic API says:
// text the outside controls, so bounded (cut with textclip's ellipsis).
const (
	maxTitleRunes       = 1000
	maxContentTypeBytes = 255
	maxAuthors          = 100
	maxAuthorRunes      = 300
)

// Read takes the page through in.Fetcher and reads it: text, fragments and
// identifiers. It extracts no claims.
func Read(ctx context.Context, in Input, cfg Config) PageResult {
	var r PageResult
	start := time.Now()
	res, err := in.Fetcher.Fetch(ctx, in.URL)
	r.FetchTime = time.Since(start)
	if err != nil {
		r.Status, r.Err = StatusFetchFailed, err
		return r
	}
	r.Fetch = res
	doc, admitErr, err := readText(ctx, res, cfg, in.Memory)
	if admitErr != nil {
		r.Status, r.Err = StatusNotAdmitted, admitErr
		return r
	}
	if err != nil {
		r.Status, r.Err = StatusUnreadable, err
		return r
	}
	r.Page = metadata(res, doc.Title, in.Paper)
	r.Page.Fetched = !in.FromStore
	sum := sha256.Sum256([]byte(doc.Text))
	r.Page.SHA256 = hex.EncodeToString(sum[:])
	r.Page.Content = doc.Text
	r.Page.Fragments = extract.Fragments(doc.Text, cfg.Fragments)
	if cfg.MaxFragments > 0 && len(r.Page.Fragments) > cfg.MaxFragments {
		// The version keeps the whole text; only its first fragments are
		// stored, embedded and searched.
		r.Page.Fragments = r.Page.Fragments[:cfg.MaxFragments]
	}
	r.Page.Identifiers = slices.Clone(in.IDs)
	r.Page.Declared, r.FollowUps.Cites = pageIdentifiers(res, doc.Text)
	r.FollowUps.CitationGraph = in.Paper != nil || slices.ContainsFunc(slices.Concat(r.Page.Identifiers, r.Page.Declared),
		func(id extract.Identifier) bool { return id.Type == extract.IDDOI })
	return r
}

// readText extracts the page's main text, once mem admits what it may
// hold (Estimate; an HTML page is first read by the token pass, which
// builds no tree and refuses a page over the limits). admitErr is the
// admission's failure. No I/O.
func readText(ctx context.Context, res *crawl.Result, cfg Config, mem Admitter) (doc extract.Document, admitErr, err error) {
	admit := func(parseHeap int64) error {
		if mem == nil {
			return nil
		}
		return mem.Admit(ctx, Estimate(len(res.Body), parseHeap))
	}
	switch res.ContentType {
	case "text/plain":
		if err := admit(0); err != nil {
			return doc, err, nil
		}
		doc = extract.FromPlainText(res.Body)
	default:
		pageURL, _ := url.Parse(res.FinalURL)
		page, err := extract.PrepareHTML(res.Body, res.ContentType, extract.Limits{MaxElements: cfg.MaxElements})
		if errors.Is(err, extract.ErrTooManyElements) {
			return doc, nil, err // the failure reason and its figures
		}
		if err != nil {
			return doc, nil, fmt.Errorf("extract main text: %w", err)
		}
		if err := admit(page.HeapEstimate()); err != nil {
			return doc, err, nil
		}
		doc, err = page.Extract(pageURL)
		if errors.Is(err, extract.ErrArticleLost) {
			return doc, nil, err // the failure reason (article_lost)
		}
		if err != nil {
			return doc, nil, fmt.Errorf("extract main text: %w", err)
		}
	}
	if strings.TrimSpace(doc.Text) == "" {
		return doc, nil, fmt.Errorf("extract main text: %w", extract.ErrNoText)
	}
	return doc, nil, nil
}

// TextHeapPerByte is the heap processing a page's text holds at its peak
// per byte of body, beyond the body: canonical text, fragments, sentence
// segmentation, identifiers and the built-in claim extractor. Measured
// (TestEstimateCoversThePeakHeap): 8.1 on 5.1 MB of text/plain of one
// short sentence a paragraph, the most of the shapes tried (7.2 for 5 MB
// of HTML text).
const TextHeapPerByte = 9

// Estimate is what a page of bodyBytes may hold on the heap from its
// admission to the end of its work: its body, and the larger of what
// parsing it holds (parseHeap: extract.Prepared.HeapEstimate; 0 for
// text/plain) and what processing its text does (TextHeapPerByte).
func Estimate(bodyBytes int, parseHeap int64) int64 {
	b := int64(bodyBytes)
	return b + max(parseHeap, TextHeapPerByte*b)
}

// MaxEstimate is the Estimate of the largest page the limits let
// through: a body of maxBodyBytes and a tree at the node budget of
// cfg.MaxElements (extract.NodesPerElement nodes an element); 0 when
// cfg.MaxElements is 0 (no node budget, no such page).
func MaxEstimate(cfg Config, maxBodyBytes int64) int64 {
	if cfg.MaxElements <= 0 {
		return 0
	}
	return Estimate(int(maxBodyBytes), int64(extract.NodesPerElement)*int64(cfg.MaxElements)*extract.HeapPerNode)
}

// pageIdentifiers are the ids a page declares about itself and the works it
// cites. The ids a page declares (its meta tags) are claims, not facts:
// anyone can declare any DOI. They are recorded, never trusted to say which
// paper this page is. DOIs merely cited in links or text belong to other
// works: stubs the page cites, so a later fetch or DOI target finds the
// paper. No I/O.
func pageIdentifiers(res *crawl.Result, text string) (declared, cites []extract.Identifier) {
	body := res.Body
	if res.ContentType == "text/plain" {
		body = nil
	} else {
		declared = extract.MetaIdentifiers(res.Body)
		if len(declared) > maxOwnIDs {
			declared = declared[:maxOwnIDs] // the first ones declared
		}
	}
	for _, id := range extract.Identifiers(body, text) {
		if !slices.Contains(declared, id) && len(cites) < maxLinkedIDs {
			cites = append(cites, id)
		}
	}
	return declared, cites
}

// metadata is the page's fetch record and an API's paper metadata as the
// store keeps them: outside text cut to its bounds. No I/O.
func metadata(res *crawl.Result, title string, paper *academic.Paper) Page {
	p := Page{URL: res.URL, FinalURL: res.FinalURL, Title: textclip.Runes(title, maxTitleRunes), Status: res.Status,
		ContentType: textclip.Bytes(res.ContentType, maxContentTypeBytes), FetchedAt: res.FetchedAt, Capture: res.Capture}
	if a := paper; a != nil {
		authors := make([]string, 0, min(len(a.Authors), maxAuthors))
		for _, name := range a.Authors[:cap(authors)] {
			authors = append(authors, textclip.Runes(name, maxAuthorRunes))
		}
		p.Paper = &PaperMeta{Title: textclip.Runes(a.Title, maxTitleRunes), Venue: textclip.Runes(a.Venue, maxTitleRunes),
			S2ID: a.S2ID, OpenAlexID: a.OpenAlexID, Year: a.Year, Authors: authors}
	}
	return p
}

// paperPage is the starting point of a resolved DOI: an abstract-only page
// at https://doi.org/<doi>, its text the title and the abstract (the title
// alone for a paper without an abstract — a placeholder the citation graph
// and verification can still point at). Everything after is the url path.
func paperPage(p *academic.Paper) *crawl.Result {
	text := strings.TrimSpace(p.Title)
	if a := strings.TrimSpace(p.Abstract); a != "" {
		text += "\n\n" + a
	}
	u := "https://doi.org/" + p.DOI
	return &crawl.Result{URL: u, FinalURL: u, Status: 200, ContentType: "text/plain", Body: []byte(text), FetchedAt: time.Now().UTC()}
}

// paperIdentifiers are the ids a resolved paper is indexed under.
func paperIdentifiers(p *academic.Paper) []extract.Identifier {
	var out []extract.Identifier
	for _, id := range []extract.Identifier{{Type: extract.IDDOI, Value: p.DOI}, {Type: extract.IDPMID, Value: p.PMID},
		{Type: extract.IDArXiv, Value: p.ArXiv}, {Type: "s2", Value: p.S2ID}, {Type: "openalex", Value: p.OpenAlexID}} {
		if id.Value != "" {
			out = append(out, id)
		}
	}
	return out
}
