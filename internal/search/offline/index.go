// Package offline is a search backend that answers from a replay archive
// (EVF_REPLAY_DIR: WARC files or the older manifest.jsonl, crawl.OpenArchive)
// instead of the web: Okapi BM25 over the main text of the archived pages,
// tokenised exactly as the built-in reranker does (builtin.BM25Terms). An
// Index is a search.Searcher, so query targets, `make run`, `make eval` and
// tests search offline through the same worker code as with SearxNG;
// Handler serves the same answers as SearxNG JSON over HTTP.
//
// The index is built once, on the first search, from every 200 answer of
// the archive whose type is HTML or plain text (robots.txt excepted): the
// main text the fleet would extract from it (extract.FromHTMLWithLimits
// with the worker's limits), its title counting as part of it. It holds
// each page's text and the postings of its terms, so its memory is
// proportional to the archive's text. Results are ordered by score, then
// URL; a result's content is the page's best-matching passage, cut to
// SnippetRunes.
package offline

import (
	"context"
	"fmt"
	"io"
	"math"
	"mime"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/sentence"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
)

// Bounds of one search.
const (
	// MaxQueryBytes bounds the query text read; the rest is ignored.
	MaxQueryBytes = 1 << 10
	// MaxQueryTerms bounds the distinct query terms scored (the first ones).
	MaxQueryTerms = 32
	// DefaultResults is the number of results of a search with limit ≤ 0;
	// a larger limit than search.PageResults gets search.PageResults.
	DefaultResults = 10
	// SnippetRunes bounds a result's content, TitleRunes its title.
	SnippetRunes = 300
	TitleRunes   = 200
)

// BM25 parameters: the usual defaults, as the built-in reranker's.
const (
	k1 = 1.2
	b  = 0.75
)

// defaultMaxBytes is Options.MaxBytes when unset (EVF_FETCH_MAX_BYTES' default).
const defaultMaxBytes = 5 << 20

// Options bound what the index reads of the archive: what the worker's
// fetcher and extractor would accept.
type Options struct {
	// MaxBytes: a larger archived body is not indexed (0: 5 MiB).
	MaxBytes int64
	// MaxElements: an HTML page with more elements is not indexed (0: no limit).
	MaxElements int
}

// Index answers searches from the replay archive in its directory. It is
// safe for concurrent use.
type Index struct {
	dir  string
	opts Options

	mu    sync.Mutex
	built bool
	err   error // the build's failure, kept
	c     *corpus
}

var _ search.Searcher = (*Index)(nil)

// New returns the index of the archive in dir, built on the first search.
func New(dir string, opts Options) *Index {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultMaxBytes
	}
	return &Index{dir: dir, opts: opts}
}

// corpus is the built index: the pages and the postings of their terms.
type corpus struct {
	docs     []doc
	postings map[string][]posting
	avgLen   float64
}

type doc struct {
	url, title, text string
	length           int // index terms, title included
}

type posting struct {
	doc, tf int32
}

// Search implements search.Searcher: the archive's pages matching any term
// of query, by BM25 score (ties by URL), at most limit (≤ 0:
// DefaultResults; at most search.PageResults). Each search counts as one in
// the job's cost meter, as a SearxNG request does. It fails only when the
// archive cannot be read or ctx ends.
func (x *Index) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	cost.From(ctx).Search()
	c, err := x.corpus(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultResults
	}
	limit = min(limit, search.PageResults)
	terms := QueryTerms(query)
	hits := c.rank(terms)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]search.Result, len(hits))
	for i, h := range hits {
		d := c.docs[h.doc]
		out[i] = search.Result{URL: d.url, Title: d.title, Snippet: c.snippet(d.text, terms)}
	}
	return out, nil
}

// Len returns the number of pages indexed, building the index if needed.
func (x *Index) Len(ctx context.Context) (int, error) {
	c, err := x.corpus(ctx)
	if err != nil {
		return 0, err
	}
	return len(c.docs), nil
}

// corpus builds the index once; a failure other than ctx's end is kept.
func (x *Index) corpus(ctx context.Context) (*corpus, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built {
		return x.c, x.err
	}
	c, err := build(ctx, x.dir, x.opts)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("offline search: %w", ctx.Err()) // not kept: the next search builds again
	}
	x.built, x.c, x.err = true, c, err
	return c, err
}

// QueryTerms are the distinct index terms of query's first MaxQueryBytes,
// at most MaxQueryTerms, in order of first use.
func QueryTerms(query string) []string {
	if len(query) > MaxQueryBytes {
		query = textclip.Bytes(query, MaxQueryBytes)
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range builtin.BM25Terms(query) {
		if !seen[t] && len(out) < MaxQueryTerms {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// build reads the archive in dir and indexes its pages (see the package
// documentation).
func build(ctx context.Context, dir string, opts Options) (*corpus, error) {
	archive, err := crawl.OpenArchive(dir)
	if err != nil {
		return nil, fmt.Errorf("offline search: %w", err)
	}
	c := &corpus{postings: map[string][]posting{}}
	var total int
	for _, e := range archive.Entries() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, ok, err := readPage(archive, e, opts)
		if err != nil {
			return nil, fmt.Errorf("offline search: %s: %w", e.URL, err)
		}
		if !ok {
			continue
		}
		terms := append(builtin.BM25Terms(d.title), builtin.BM25Terms(d.text)...)
		d.length = len(terms)
		if d.length == 0 {
			continue
		}
		id := int32(len(c.docs))
		c.docs = append(c.docs, d)
		total += d.length
		tf := map[string]int32{}
		for _, t := range terms {
			tf[t]++
		}
		for t, n := range tf {
			c.postings[t] = append(c.postings[t], posting{doc: id, tf: n})
		}
	}
	if len(c.docs) > 0 {
		c.avgLen = float64(total) / float64(len(c.docs))
	}
	return c, nil
}

// readPage is the indexed page of an archive entry; ok is false for an
// entry that is not one (not a 200 page of HTML or text, robots.txt, too
// large, without text). Only a body the archive cannot give is an error.
func readPage(archive *crawl.Archive, e crawl.ArchiveEntry, opts Options) (d doc, ok bool, err error) {
	if e.Status != 200 || strings.HasSuffix(e.URL, "/robots.txt") {
		return d, false, nil
	}
	media, _, _ := mime.ParseMediaType(e.ContentType())
	if media != "text/html" && media != "application/xhtml+xml" && media != "text/plain" {
		return d, false, nil
	}
	f, _, err := archive.Body(e)
	if err != nil {
		return d, false, err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, opts.MaxBytes+1))
	if err != nil {
		return d, false, err
	}
	if int64(len(body)) > opts.MaxBytes {
		return d, false, nil // the fetcher refuses it too
	}
	var page extract.Document
	if media == "text/plain" {
		page = extract.FromPlainText(body)
	} else {
		pageURL, _ := url.Parse(e.URL)
		if page, err = extract.FromHTMLWithLimits(body, e.ContentType(), pageURL, extract.Limits{MaxElements: opts.MaxElements}); err != nil {
			return d, false, nil // unreadable for the fleet as well (no text, too many elements, …)
		}
	}
	if strings.TrimSpace(page.Text) == "" {
		return d, false, nil
	}
	title := textclip.Runes(page.Title, TitleRunes)
	if title == "" {
		title = e.URL
	}
	return doc{url: e.URL, title: title, text: page.Text}, true, nil
}

// hit is a scored page.
type hit struct {
	doc   int32
	score float64
}

// rank scores every page holding a query term and orders them by score,
// then URL. No I/O.
func (c *corpus) rank(terms []string) []hit {
	n := float64(len(c.docs))
	scores := map[int32]float64{}
	for _, t := range terms { // in query order, so sums are reproducible
		ps := c.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := IDF(n, len(ps))
		for _, p := range ps {
			scores[p.doc] += TermScore(idf, float64(p.tf), float64(c.docs[p.doc].length), c.avgLen)
		}
	}
	out := make([]hit, 0, len(scores))
	for d, s := range scores {
		out = append(out, hit{doc: d, score: s})
	}
	slices.SortFunc(out, func(a, b hit) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(c.docs[a.doc].url, c.docs[b.doc].url)
	})
	return out
}

// IDF is the BM25 inverse document frequency of a term in df of n
// documents: ln(1 + (n−df+0.5)/(df+0.5)), never negative (as the built-in
// reranker's).
func IDF(n float64, df int) float64 {
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one term's BM25 contribution: idf·tf·(k1+1)/(tf + k1·(1−b+b·len/avgLen)).
func TermScore(idf, tf, length, avgLen float64) float64 {
	if tf == 0 || avgLen == 0 {
		return 0
	}
	return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*length/avgLen))
}

// snippet is the passage of text that best matches terms (see passages),
// scored by BM25 with the archive's IDFs and the page's average passage
// length, the first on a tie, cut to SnippetRunes. No I/O.
func (c *corpus) snippet(text string, terms []string) string {
	ps := passages(text)
	if len(ps) == 0 {
		return ""
	}
	n := float64(len(c.docs))
	idf := make(map[string]float64, len(terms))
	for _, t := range terms {
		if df := len(c.postings[t]); df > 0 {
			idf[t] = IDF(n, df)
		}
	}
	pterms := make([][]string, len(ps))
	var total int
	for i, p := range ps {
		pterms[i] = builtin.BM25Terms(p)
		total += len(pterms[i])
	}
	avg := float64(total) / float64(len(ps))
	best, bestScore := 0, 0.0
	for i, pt := range pterms {
		tf := map[string]int{}
		for _, t := range pt {
			if _, ok := idf[t]; ok {
				tf[t]++
			}
		}
		var s float64
		for _, t := range terms {
			s += TermScore(idf[t], float64(tf[t]), float64(len(pt)), avg)
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	return textclip.Runes(ps[best], SnippetRunes)
}

// passages splits text into its blocks ("\n\n"-separated, as extract
// writes them); a block longer than SnippetRunes is split into runs of
// whole sentences of at most SnippetRunes each (a longer sentence alone).
func passages(text string) []string {
	var out []string
	for block := range strings.SplitSeq(text, "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" {
			continue
		}
		if len([]rune(block)) <= SnippetRunes {
			out = append(out, block)
			continue
		}
		var cur strings.Builder
		curRunes := 0
		for _, s := range sentence.Split(block) {
			r := len([]rune(s.Text))
			if curRunes > 0 && curRunes+1+r > SnippetRunes {
				out = append(out, cur.String())
				cur.Reset()
				curRunes = 0
			}
			if curRunes > 0 {
				cur.WriteByte(' ')
				curRunes++
			}
			cur.WriteString(s.Text)
			curRunes += r
		}
		if curRunes > 0 {
			out = append(out, cur.String())
		}
	}
	return out
}
