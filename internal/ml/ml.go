// Package ml holds the model interfaces of the fleet — one small interface per
// capability: Embedder, NLI, Reranker and LLM (claim extraction, relevance) —
// together with the built-in, deterministic, offline baselines: a hashed
// n-gram embedder (HashEmbedder), a lexical NLI classifier (LexicalNLI), a
// BM25-style reranker and a sentence-based claim extractor. They are pure Go,
// need no network and give the same output for the same input in every
// process. HTTP backends (OpenAI-compatible, TEI, Jina-style) live in
// internal/backend and implement the same interfaces.
package ml

import (
	"context"
	"errors"
	"math"
	"slices"
)

// ErrUnavailable marks a backend that could not answer: connection refused,
// timeout, 429/5xx after retries, or its circuit breaker open. Jobs that meet
// it wait and retry later; it is never a permanent failure.
var ErrUnavailable = errors.New("model backend unavailable")

// ErrBadResponse marks an answer that does not have the documented shape:
// non-JSON, wrong fields, wrong number of results, NaN scores, a vector of the
// wrong dimension. The error text names what was wrong.
var ErrBadResponse = errors.New("model backend answered garbage")

// ErrRejected marks a request the backend refused as invalid (4xx other than
// 408/429): retrying the same request cannot succeed.
var ErrRejected = errors.New("model backend rejected the request")

// Relation labels of NLI edges.
const (
	// Supports means the premise entails the hypothesis.
	Supports = "supports"
	// Refutes means the premise contradicts the hypothesis.
	Refutes = "refutes"
	// Neutral means the premise neither entails nor contradicts the hypothesis.
	Neutral = "neutral"
)

// Pair is one NLI input: Premise is the evidence fragment text, Hypothesis the claim text.
type Pair struct{ Premise, Hypothesis string }

// Judgement is one NLI output: Label is Supports/Refutes/Neutral, Confidence
// in [0,1] (the top-class probability).
type Judgement struct {
	Label      string
	Confidence float64
}

// Embedder turns texts into L2-normalised vectors of Dim() floats.
type Embedder interface {
	// Model is the stable model id stored with every embedding, e.g. "builtin-hash-ngram-v1".
	Model() string
	// Dim is the length of every returned vector.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// NLI judges premise/hypothesis pairs in batches; len(out)==len(pairs).
type NLI interface {
	// Model is the stable model id stored with every judgement.
	Model() string
	// Judge returns one Judgement per pair, in order.
	Judge(ctx context.Context, pairs []Pair) ([]Judgement, error)
}

// Reranker scores documents against a query; higher is more relevant. Scores
// are comparable within one call only.
type Reranker interface {
	// Model is the stable model id stored with every ranking.
	Model() string
	// Rerank returns one score per document, in order.
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// ClaimRequest is one page version handed to an LLM for claim extraction.
type ClaimRequest struct {
	URL, Title string
	Text       string // the page version's canonical text
	MaxClaims  int    // at most this many claims are wanted
}

// LLMClaim is one extracted claim: an atomic statement, the verbatim quote
// of the page it rests on, and the model's self-reported confidence in [0,1].
// The quote is only a proposal: callers validate it against the page text
// (extract.LocateQuote) and drop claims whose quote does not occur.
type LLMClaim struct {
	Claim      string
	Quote      string
	Confidence float64
}

// LLM is a chat model used for claim extraction and relevance scoring.
type LLM interface {
	// Model is the stable model id (and prompt version) of the extractor.
	Model() string
	// ExtractClaims proposes atomic claims with verbatim quotes from a page.
	ExtractClaims(ctx context.Context, req ClaimRequest) ([]LLMClaim, error)
	// Relevance rates how relevant text is to query on a 0–10 scale.
	Relevance(ctx context.Context, query, text string) (float64, error)
}

// Cosine returns the cosine similarity of a and b. For L2-normalised vectors
// this equals their dot product. It returns 0 when the lengths differ, when
// either vector is empty or all zeros (e.g. the embedding of an empty text),
// or when the inputs hold NaN/Inf; the result is clamped to [-1,1].
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	var dot, na, nb float64
	for i, x := range a {
		y := float64(b[i])
		fx := float64(x)
		dot += fx * y
		na += fx * fx
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / math.Sqrt(na*nb)
	switch {
	case math.IsNaN(c):
		return 0
	case c > 1:
		return 1
	case c < -1:
		return -1
	}
	return c
}

// TopK returns indices of the k highest scores >= min, best first, ties
// broken by lower index (deterministic). NaN scores are never returned; k <= 0
// yields an empty result.
func TopK(scores []float64, k int, min float64) []int {
	if k <= 0 || len(scores) == 0 {
		return []int{}
	}
	// better reports whether index i ranks before index j.
	better := func(i, j int) bool {
		if scores[i] != scores[j] {
			return scores[i] > scores[j]
		}
		return i < j
	}
	if k > len(scores) {
		k = len(scores)
	}
	// h is a binary heap whose root is the worst of the kept indices.
	h := make([]int, 0, k)
	down := func(i int) {
		n := len(h)
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			w := l
			if r := l + 1; r < n && better(h[l], h[r]) {
				w = r
			}
			if !better(h[i], h[w]) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	i := 0
	for ; i < len(scores) && len(h) < k; i++ {
		if !(scores[i] >= min) { // also rejects NaN
			continue
		}
		h = append(h, i)
		for j := len(h) - 1; j > 0; {
			p := (j - 1) / 2
			if !better(h[p], h[j]) {
				break
			}
			h[p], h[j] = h[j], h[p]
			j = p
		}
	}
	if len(h) == k {
		// Only a higher score than the root's beats it: on a tie the root's
		// lower index wins, as every kept index is lower than i. Such a
		// score is also >= min and no NaN.
		worst := scores[h[0]]
		for ; i < len(scores); i++ {
			if scores[i] > worst {
				h[0] = i
				down(0)
				worst = scores[h[0]]
			}
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case better(a, b):
			return -1
		}
		return 1
	})
	return h
}
