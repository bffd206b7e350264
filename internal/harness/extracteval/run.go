package extracteval

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"

	"github.com/evidencefleet/evidencefleet/internal/extract"
)

// Extractor turns a saved page into its main text.
type Extractor struct {
	Name    string
	Extract func(src []byte, pageURL *url.URL) (string, error)
}

// PageURL is the address every development page is read as (the one its
// upstream test suite uses).
var PageURL = &url.URL{Scheme: "http", Host: "fakehost", Path: "/test/page.html"}

// Fleet is the product's extraction with the worker's default element cap.
func Fleet(maxElements int) Extractor {
	return Extractor{Name: "fleet", Extract: func(src []byte, u *url.URL) (string, error) {
		d, err := extract.FromHTMLWithLimits(src, "", u, extract.Limits{MaxElements: maxElements})
		if errors.Is(err, extract.ErrNoText) || errors.Is(err, extract.ErrArticleLost) {
			return "", nil // scored as an empty extraction
		}
		return d.Text, err
	}}
}

// Readability is the readability library the fleet builds on, used plainly:
// its article rendered as text, no pruning, no fallback.
func Readability() Extractor {
	return Extractor{Name: "readability", Extract: func(src []byte, u *url.URL) (string, error) {
		parser := readability.NewParser()
		a, err := parser.Parse(bytes.NewReader(src), u)
		if err != nil || a.Node == nil {
			return "", nil // no article is an empty extraction, not a failed run
		}
		var b strings.Builder
		if err := a.RenderText(&b); err != nil {
			return "", err
		}
		return b.String(), nil
	}}
}

// PageResult is one extractor's result on one page.
type PageResult struct {
	Page    string  `json:"page"`
	Half    string  `json:"half"`
	F1      float64 `json:"f1"`
	Prec    float64 `json:"precision"`
	Recall  float64 `json:"recall"`
	Seconds float64 `json:"seconds"`
}

// Result is one extractor's figures on the set.
type Result struct {
	Extractor string             `json:"extractor"`
	Halves    map[string]Scores  `json:"halves"` // "tune", "check", "all"
	MsPerPage float64            `json:"ms_per_page_median"`
	Pages     []PageResult       `json:"pages"`
	byPage    map[string]float64 // page name → F1
}

// Run scores every extractor on every page, one after the other.
func Run(pages []Page, exs []Extractor) ([]Result, error) {
	var out []Result
	for _, ex := range exs {
		r := Result{Extractor: ex.Name, Halves: map[string]Scores{}, byPage: map[string]float64{}}
		halves := map[string][]Match{}
		var secs []float64
		for _, p := range pages {
			start := time.Now()
			text, err := ex.Extract(p.Source, PageURL)
			el := time.Since(start).Seconds()
			if err != nil {
				return nil, fmt.Errorf("extracteval: %s on %s: %w", ex.Name, p.Name, err)
			}
			m := Compare(p.Expected, text)
			r.Pages = append(r.Pages, PageResult{Page: p.Name, Half: p.Half, F1: m.F1(), Prec: m.Precision(), Recall: m.Recall(), Seconds: el})
			r.byPage[p.Name] = m.F1()
			halves[p.Half] = append(halves[p.Half], m)
			halves["all"] = append(halves["all"], m)
			secs = append(secs, el)
		}
		for h, ms := range halves {
			r.Halves[h] = Summarise(ms)
		}
		sort.Float64s(secs)
		if len(secs) > 0 {
			r.MsPerPage = secs[len(secs)/2] * 1000
		}
		out = append(out, r)
	}
	return out, nil
}

// Worst returns the n pages of r with the lowest F1, lowest first.
func (r Result) Worst(n int) []PageResult {
	ps := append([]PageResult(nil), r.Pages...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].F1 < ps[j].F1 })
	return ps[:min(n, len(ps))]
}

// F1Of is r's F1 on the named page.
func (r Result) F1Of(page string) float64 { return r.byPage[page] }
