package extracteval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// SnippetPage is a page judged by snippets rather than by its whole main
// text: passages a person marked as main text (With) and as boilerplate
// (Without).
type SnippetPage struct {
	Name    string
	Half    string
	URL     *url.URL
	Source  []byte
	With    []string
	Without []string
}

// SnippetCounts tallies snippets over pages: a With snippet found is a true
// positive, missed a false negative; a Without snippet found is a false
// positive, left out a true negative.
type SnippetCounts struct {
	TP, FN, FP, TN int
}

// Add scores text against p's snippets (both read by collapse, case kept)
// and adds the result.
func (c *SnippetCounts) Add(p SnippetPage, text string) {
	text = collapse(text)
	for _, s := range p.With {
		if strings.Contains(text, collapse(s)) {
			c.TP++
		} else {
			c.FN++
		}
	}
	for _, s := range p.Without {
		if strings.Contains(text, collapse(s)) {
			c.FP++
		} else {
			c.TN++
		}
	}
}

// Scores are the snippet figures as the trafilatura evaluation reports
// them: precision TP/(TP+FP), recall TP/(TP+FN), their F1, and accuracy.
func (c SnippetCounts) Scores() (precision, recall, f1, accuracy float64) {
	if c.TP+c.FP > 0 {
		precision = float64(c.TP) / float64(c.TP+c.FP)
	}
	if c.TP+c.FN > 0 {
		recall = float64(c.TP) / float64(c.TP+c.FN)
	}
	if n := c.TP + c.FN + c.FP + c.TN; n > 0 {
		accuracy = float64(c.TP+c.TN) / float64(n)
	}
	return precision, recall, harmonic(precision, recall), accuracy
}

// collapse reads s as it is displayed: invisible characters (soft hyphens,
// zero-width spaces and joiners, byte-order marks) removed, whitespace runs
// collapsed to one space. A snippet typed with soft hyphens matches a text
// without them and the other way round.
func collapse(s string) string {
	s = invisible.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

var invisible = strings.NewReplacer("\u00ad", "", "\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "")

// snippetRecord is one line of snippets.jsonl.
type snippetRecord struct {
	File    string   `json:"file"`
	URL     string   `json:"url"`
	With    []string `json:"with"`
	Without []string `json:"without"`
}

// LoadSnippetPages reads <dir>/snippets.jsonl and each page it names from
// <dir>/pages/<file>.gz, in file order; with limit > 0, only the first
// limit.
func LoadSnippetPages(dir string, limit int) ([]SnippetPage, error) {
	f, err := os.Open(filepath.Join(dir, "snippets.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("extracteval: %w", err)
	}
	defer f.Close()
	var pages []SnippetPage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for (limit <= 0 || len(pages) < limit) && sc.Scan() {
		var r snippetRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("extracteval: snippets.jsonl line %d: %w", len(pages)+1, err)
		}
		u, err := url.Parse(r.URL)
		if err != nil || r.File == "" || strings.ContainsAny(r.File, `/\`) {
			return nil, fmt.Errorf("extracteval: snippets.jsonl line %d: bad url or file", len(pages)+1)
		}
		src, err := readGzip(filepath.Join(dir, "pages", r.File+".gz"))
		if err != nil {
			return nil, err
		}
		pages = append(pages, SnippetPage{Name: r.File, Half: HalfOf(r.File), URL: u, Source: src, With: r.With, Without: r.Without})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("extracteval: snippets.jsonl: %w", err)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("extracteval: no pages in %s", dir)
	}
	return pages, nil
}

// SnippetResult is one extractor's snippet figures by half.
type SnippetResult struct {
	Extractor string                   `json:"extractor"`
	Halves    map[string]SnippetCounts `json:"halves"` // "tune", "check", "all"
}

// RunSnippets scores every extractor on every snippet page.
func RunSnippets(pages []SnippetPage, exs []Extractor) ([]SnippetResult, error) {
	var out []SnippetResult
	for _, ex := range exs {
		r := SnippetResult{Extractor: ex.Name, Halves: map[string]SnippetCounts{}}
		for _, p := range pages {
			text, err := ex.Extract(p.Source, p.URL)
			if err != nil {
				return nil, fmt.Errorf("extracteval: %s on %s: %w", ex.Name, p.Name, err)
			}
			for _, h := range []string{p.Half, "all"} {
				c := r.Halves[h]
				c.Add(p, text)
				r.Halves[h] = c
			}
		}
		out = append(out, r)
	}
	return out, nil
}
