package extract

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// Identifier types.
const (
	IDDOI   = ident.DOI
	IDPMID  = ident.PMID
	IDArXiv = ident.ArXiv
)

// Identifier is an academic identifier found in a page.
type Identifier struct {
	// Type is "doi", "pmid" or "arxiv".
	Type string
	// Value is normalised: a DOI lowercased without resolver prefix or "doi:";
	// an arXiv id without "arXiv:" and without version suffix; a PMID as digits.
	Value string
}

var (
	rxDOI       = regexp.MustCompile(`10\.\d{4,9}/[^\s"'<>“”‘’«»]+`)
	rxPMIDText  = regexp.MustCompile(`(?i)\bPMID:?\s*(\d{1,9})\b`)
	rxPubMedURL = regexp.MustCompile(`(?i)(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b`)
	arxivID     = `(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z\-]*(?:\.[A-Za-z]{2})?/\d{7}(?:v\d+)?)`
	rxArxivText = regexp.MustCompile(`(?i)(?:\barxiv:\s*|arxiv\.org/(?:abs|pdf)/)` + arxivID)
)

// MaxIdentifiers caps the identifiers Identifiers and MetaIdentifiers
// return: the first ones in their order. A page of 5 MiB can mention
// half a million distinct DOIs; the worker keeps 16 of a page's own and
// 200 linked ones.
const MaxIdentifiers = 1000

// Identifiers finds DOI, PMID and arXiv identifiers in an HTML page and its
// text: meta tags (citation_doi, dc.identifier and its variants, prism.doi,
// citation_pmid, citation_arxiv_id), links (<a>/<link> href) to doi.org,
// dx.doi.org, pubmed.ncbi.nlm.nih.gov/NNN, ncbi.nlm.nih.gov/pubmed/NNN,
// arxiv.org/abs/ID and arxiv.org/pdf/ID, and mentions in text (DOIs
// "10.NNNN/…", "PMID: NNN", "arXiv:ID", PubMed/arXiv URLs). The result is
// deduplicated and sorted by Type then Value, at most MaxIdentifiers of
// them (the first). Note that links and text also yield the identifiers of
// cited works; MetaIdentifiers returns only the ids the page declares for
// itself. The HTML is read with a tokenizer; the scan stops at a tag with
// more than 10,000 attributes.
func Identifiers(htmlBody []byte, text string) []Identifier {
	set := idSet{}
	scanHTMLIdentifiers(htmlBody, true, set)
	textIdentifiers(text, set)
	return set.sorted()
}

// MetaIdentifiers returns only the identifiers declared in the page's meta
// tags (the page's own DOI/PMID/arXiv id), deduplicated and sorted, at most
// MaxIdentifiers of them (the first).
func MetaIdentifiers(htmlBody []byte) []Identifier {
	set := idSet{}
	scanHTMLIdentifiers(htmlBody, false, set)
	return set.sorted()
}

// idSet collects identifiers, keeping only the first MaxIdentifiers in
// sorted order once it holds twice that many.
type idSet map[Identifier]bool

func compareIDs(a, b Identifier) int {
	if c := strings.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

func (set idSet) sorted() []Identifier {
	out := make([]Identifier, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.SortFunc(out, compareIDs)
	return out[:min(len(out), MaxIdentifiers)]
}

func add(set idSet, typ, v string) {
	if v == "" {
		return
	}
	set[Identifier{Type: typ, Value: v}] = true
	if len(set) >= 2*MaxIdentifiers {
		keep := set.sorted()
		clear(set)
		for _, id := range keep {
			set[id] = true
		}
	}
}

func scanHTMLIdentifiers(body []byte, links bool, set idSet) {
	if len(body) == 0 {
		return
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	g := tagGuard{src: body}
	for {
		tt, err := g.next(z)
		if err != nil || tt == html.ErrorToken {
			return // a tag too large to read ends the scan
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch string(name) {
		case "meta":
			var key, content, scheme string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "name", "property":
					if key == "" {
						key = strings.ToLower(strings.TrimSpace(string(v)))
					}
				case "content":
					content = string(v)
				case "scheme":
					scheme = strings.ToLower(string(v))
				}
			}
			metaIdentifier(key, scheme, content, set)
		case "a", "link":
			if !links {
				continue
			}
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" {
					linkIdentifier(string(v), set)
				}
			}
		}
	}
}

func metaIdentifier(key, scheme, content string, set idSet) {
	switch key {
	case "citation_doi", "prism.doi", "bepress_citation_doi", "dc.identifier.doi", "doi":
		add(set, IDDOI, ident.NormalizeDOI(content))
	case "dc.identifier", "dcterms.identifier", "dc.identifier.uri", "citation_id":
		if m := rxDOI.FindString(content); m != "" {
			add(set, IDDOI, ident.NormalizeDOI(m))
		} else if strings.Contains(scheme, "pmid") {
			add(set, IDPMID, ident.NormalizePMID(content))
		}
	case "citation_pmid", "dc.identifier.pmid", "pmid":
		add(set, IDPMID, ident.NormalizePMID(content))
	case "citation_arxiv_id", "arxiv_id":
		add(set, IDArXiv, ident.NormalizeArXiv(content))
	}
}

func linkIdentifier(href string, set idSet) {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" {
		return
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	p := strings.TrimPrefix(u.Path, "/")
	switch host {
	case "doi.org", "dx.doi.org":
		add(set, IDDOI, ident.NormalizeDOI(p))
	case "pubmed.ncbi.nlm.nih.gov":
		add(set, IDPMID, ident.NormalizePMID(strings.TrimSuffix(p, "/")))
	case "ncbi.nlm.nih.gov":
		if rest, ok := strings.CutPrefix(p, "pubmed/"); ok {
			add(set, IDPMID, ident.NormalizePMID(strings.TrimSuffix(rest, "/")))
		}
	case "arxiv.org", "export.arxiv.org":
		if rest, ok := strings.CutPrefix(p, "abs/"); ok {
			add(set, IDArXiv, ident.NormalizeArXiv(rest))
		} else if rest, ok := strings.CutPrefix(p, "pdf/"); ok {
			add(set, IDArXiv, ident.NormalizeArXiv(strings.TrimSuffix(rest, ".pdf")))
		}
	}
}

func textIdentifiers(text string, set idSet) {
	if text == "" {
		return
	}
	if strings.Contains(text, "10.") {
		eachMatch(rxDOI, text, 0, func(m string) { add(set, IDDOI, ident.NormalizeDOI(m)) })
	}
	if strings.Contains(text, "PMID") || strings.Contains(text, "pmid") || strings.Contains(text, "ncbi") {
		eachMatch(rxPMIDText, text, 1, func(m string) { add(set, IDPMID, ident.NormalizePMID(m)) })
		eachMatch(rxPubMedURL, text, 1, func(m string) { add(set, IDPMID, ident.NormalizePMID(m)) })
	}
	if strings.Contains(strings.ToLower(text), "arxiv") {
		eachMatch(rxArxivText, text, 1, func(m string) { add(set, IDArXiv, ident.NormalizeArXiv(m)) })
	}
}

// eachMatch calls fn with group g (0: the whole match) of each match of rx
// in text, in order, as FindAllStringSubmatch would, without holding all
// matches at once. Each search restarts one byte before the previous
// match's end, so that \b sees the byte before; no match can start there
// (none of the patterns starts with a character their matches end with).
func eachMatch(rx *regexp.Regexp, text string, g int, fn func(string)) {
	for pos := 0; pos < len(text); {
		from := max(pos-1, 0)
		m := rx.FindStringSubmatchIndex(text[from:])
		if m == nil {
			return
		}
		if m[2*g] >= 0 {
			fn(text[from+m[2*g] : from+m[2*g+1]])
		}
		pos = max(from+m[1], pos+1)
	}
}
