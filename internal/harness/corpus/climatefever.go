// Package corpus builds the bundled offline replay corpus: real Wikipedia
// text from the Climate-FEVER dataset rendered as Wikipedia-like article
// pages, plus abstract pages for recorded OpenAlex and Semantic Scholar
// works, written as a crawl replay archive (see package crawl).
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Evidence is one Climate-FEVER evidence sentence: Wikipedia text (CC BY-SA)
// with its article title, sentence id ("Article title:N") and annotations.
type Evidence struct {
	EvidenceID    string   `json:"evidence_id"`
	EvidenceLabel string   `json:"evidence_label"`
	Article       string   `json:"article"`
	Evidence      string   `json:"evidence"`
	Votes         []string `json:"votes"` // null votes decode as ""
	Entropy       float64  `json:"entropy"`
}

// Record is one Climate-FEVER claim with its evidence sentences.
type Record struct {
	ClaimID    string     `json:"claim_id"`
	Claim      string     `json:"claim"`
	ClaimLabel string     `json:"claim_label"` // SUPPORTS | REFUTES | NOT_ENOUGH_INFO | DISPUTED
	Evidences  []Evidence `json:"evidences"`
}

// ReadClimateFever reads a Climate-FEVER JSONL file (one record per line,
// blank lines skipped). Errors name the line.
func ReadClimateFever(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(text, &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if r.ClaimID == "" || r.Claim == "" {
			return nil, fmt.Errorf("%s line %d: record without claim_id or claim", path, line)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ClaimLine is the demo's view of a record: the claim without its evidence.
type ClaimLine struct {
	ClaimID    string `json:"claim_id"`
	Claim      string `json:"claim"`
	ClaimLabel string `json:"claim_label"`
}

// WriteClaims writes {"claim_id","claim","claim_label"} JSON lines for records.
func WriteClaims(path string, records []Record) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		if err := enc.Encode(ClaimLine{ClaimID: r.ClaimID, Claim: r.Claim, ClaimLabel: r.ClaimLabel}); err != nil {
			return err
		}
	}
	return writeFileAtomic(path, b.Bytes())
}

// sentence is one evidence sentence placed in its article.
type sentence struct {
	n    int
	text string
}

// article groups the distinct evidence sentences of one Wikipedia article.
type article struct {
	title     string
	sentences []sentence
}

// groupArticles collects distinct sentences per article (by evidence id),
// sorted by sentence number; articles are returned in title order.
func groupArticles(records []Record) []article {
	byTitle := make(map[string]map[int]string)
	for _, r := range records {
		for _, e := range r.Evidences {
			title := e.Article
			n, ok := sentenceNumber(e.EvidenceID)
			if title == "" {
				title, _, _ = strings.Cut(e.EvidenceID, ":")
			}
			if title == "" || !ok || strings.TrimSpace(e.Evidence) == "" {
				continue
			}
			m := byTitle[title]
			if m == nil {
				m = make(map[int]string)
				byTitle[title] = m
			}
			if _, dup := m[n]; !dup {
				m[n] = strings.TrimSpace(e.Evidence)
			}
		}
	}
	out := make([]article, 0, len(byTitle))
	for title, m := range byTitle {
		a := article{title: title}
		for n, text := range m {
			a.sentences = append(a.sentences, sentence{n: n, text: text})
		}
		sort.Slice(a.sentences, func(i, j int) bool { return a.sentences[i].n < a.sentences[j].n })
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].title < out[j].title })
	return out
}

// sentenceNumber parses N from an evidence id "Article title:N" (the title
// itself may contain colons).
func sentenceNumber(id string) (int, bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	return n, err == nil && n >= 0
}

// paragraphs groups sentences, in order, into paragraphs of perParagraph
// (the last one may be shorter).
func paragraphs(ss []sentence, perParagraph int) [][]sentence {
	var out [][]sentence
	var cur []sentence
	for _, s := range ss {
		if len(cur) == perParagraph {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, s)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
