package builtin

import (
	"context"
	"fmt"
	"math"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// BM25RerankerModel is the model id of BM25Reranker.
const BM25RerankerModel = modelcard.BuiltinBM25Reranker

// BM25 parameters (the usual defaults).
const (
	bm25K1 = 1.2  // term-frequency saturation
	bm25B  = 0.75 // length normalisation
)

// BM25Reranker is a deterministic, offline Reranker: Okapi BM25 over the
// documents of one call, which form the whole collection (document
// frequencies and the average length come from them). Texts are tokenised,
// stemmed (stem) and stripped of stop words (bm25_words.go); numbers are
// terms ("1,000" and "1000" are one term). The IDF of a term in n of N
// documents is ln(1 + (N−n+0.5)/(n+0.5)), which is never negative, and each
// distinct query term counts once.
//
// The raw score s of a document is mapped to s/(s+k), where k is the score
// of an ideal match in this call: a document of average length holding
// every query term once (k = the sum of the query terms' IDFs). Such a
// document scores 0.5, one without any query term 0; the mapping is
// monotone, so it keeps the BM25 order. As a term adds less than (k1+1)
// times its IDF, scores stay below (k1+1)/(k1+2) ≈ 0.69. Like every
// Reranker's, scores are comparable within one call only. A BM25Reranker is safe for concurrent
// use.
type BM25Reranker struct {
	k1, b float64
}

var _ models.Reranker = (*BM25Reranker)(nil)

// NewBM25Reranker returns a BM25 reranker with k1 = 1.2 and b = 0.75.
func NewBM25Reranker() *BM25Reranker { return &BM25Reranker{k1: bm25K1, b: bm25B} }

// Model returns BM25RerankerModel.
func (*BM25Reranker) Model() string { return BM25RerankerModel }

// Rerank returns one score in [0, 0.69) per document, in order; an empty query
// or a query of stop words only scores every document 0. It fails only when
// ctx is done.
func (r *BM25Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bm25 rerank: %w", err)
	}
	scores := make([]float64, len(docs))
	if len(docs) == 0 {
		return scores, nil
	}
	qTerms := distinctTerms(bm25Terms(query))
	if len(qTerms) == 0 {
		return scores, nil
	}
	qIndex := newTermIndex(qTerms)

	// Per document: its length and the frequencies of the query terms.
	tf := make([]int32, len(docs)*len(qTerms))
	lengths := make([]float64, len(docs))
	df := make([]int, len(qTerms))
	var total float64
	for d, doc := range docs {
		if d&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("bm25 rerank: %w", err)
			}
		}
		terms := bm25Terms(doc)
		lengths[d] = float64(len(terms))
		total += lengths[d]
		row := tf[d*len(qTerms) : (d+1)*len(qTerms)]
		for _, t := range terms {
			if i := qIndex.find(t); i >= 0 {
				if row[i] == 0 {
					df[i]++
				}
				row[i]++
			}
		}
	}
	if total == 0 {
		return scores, nil // every document is empty
	}
	avgLen := total / float64(len(docs))
	n := float64(len(docs))
	idf := make([]float64, len(qTerms))
	var ideal float64
	for i, k := range df {
		idf[i] = math.Log(1 + (n-float64(k)+0.5)/(float64(k)+0.5))
		ideal += idf[i]
	}
	for d := range docs {
		row := tf[d*len(qTerms) : (d+1)*len(qTerms)]
		norm := r.k1 * (1 - r.b + r.b*lengths[d]/avgLen)
		var s float64
		for i, f := range row {
			if f == 0 {
				continue
			}
			x := float64(f)
			s += idf[i] * x * (r.k1 + 1) / (x + norm)
		}
		scores[d] = s / (s + ideal)
	}
	return scores, nil
}

// BM25Terms returns the index terms of text exactly as BM25Reranker sees
// them: the stems of its words other than stop words, and its numbers in
// normalised form, in text order with repeats. Other BM25 indexes (the
// replay archive's offline search) use it so that every lexical score in
// the fleet tokenises alike. Safe for concurrent use.
func BM25Terms(text string) []string { return bm25Terms(text) }

// bm25Terms returns the index terms of text: the stems of its words other
// than stop words, and its numbers in normalised form.
func bm25Terms(text string) []string {
	words := textWords(text)
	out := words[:0]
	for _, w := range words {
		switch {
		case bm25Stop[w]:
			continue
		case isNumber(w):
			out = append(out, normaliseNumber(w))
		case bm25Unstemmed[w]:
			out = append(out, w)
		default:
			out = append(out, stem(w))
		}
	}
	return out
}

// termIndex finds the index of a term among distinct query terms: by
// linear search for the usual few terms, else by a map.
type termIndex struct {
	terms []string
	m     map[string]int
}

func newTermIndex(terms []string) termIndex {
	x := termIndex{terms: terms}
	if len(terms) > 16 {
		x.m = make(map[string]int, len(terms))
		for i, t := range terms {
			x.m[t] = i
		}
	}
	return x
}

// find returns the index of t, or -1.
func (x termIndex) find(t string) int {
	if x.m != nil {
		if i, ok := x.m[t]; ok {
			return i
		}
		return -1
	}
	for i, q := range x.terms {
		if q == t {
			return i
		}
	}
	return -1
}

// distinctTerms returns terms without repeats, in order of first use.
func distinctTerms(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
