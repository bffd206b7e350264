// Package rank is the pure scoring of the rerank job (ARCHITECTURE.md §5.3): it
// normalises stage-1 full-text scores, combines them with embedding cosines
// (stage 2), applies the reranker's scores and the domain trust weights
// (stage 3) and breaks ties deterministically. It does no I/O: the caller
// reads the candidates, calls the models and stores the result.
//
// Domain trust adjusts the ranking only. The raw score of every stage and the
// weight are kept apart in Entry, so that what the models said stays visible
// next to the weighted order; nothing here touches a claim's posterior.
package rank

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Domain trust levels (ARCHITECTURE.md §5.5), as stored in
// domains.trust_level: package domainpolicy's.
const (
	Primary    = domainpolicy.Primary
	Government = domainpolicy.Government
	Academic   = domainpolicy.Academic
	Trusted    = domainpolicy.Trusted
	Low        = domainpolicy.Low
	Unverified = domainpolicy.Unverified
	Blocked    = domainpolicy.Blocked
)

// TrustWeight returns the ranking weight of a domain trust level
// (ARCHITECTURE.md §5.3, domainpolicy.Weight). An empty or unknown level
// weighs as UNVERIFIED: a level nobody vouched for earns no more than an
// unverified domain.
func TrustWeight(level string) float64 { return domainpolicy.Weight(level) }

// ExcludedLevels returns, sorted, the trust levels of weight 0 (BLOCKED):
// their fragments never enter a ranking, not even at the bottom.
func ExcludedLevels() []string {
	var out []string
	for _, level := range domainpolicy.Levels {
		if domainpolicy.Weight(level) == 0 {
			out = append(out, level)
		}
	}
	slices.Sort(out)
	return out
}

// QueryHash identifies a ranking query: the SHA-256 (hex) of the text
// lowercased with whitespace collapsed, so "Sea ice" and " sea  ICE" share
// one ranking.
func QueryHash(query string) string {
	norm := strings.Join(strings.FieldsFunc(strings.ToLower(query), unicode.IsSpace), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}

// NormalizeByMax divides every score by the largest, so the best becomes 1.
// Negative, NaN and infinite scores count as 0; when no score is positive,
// all results are 0.
func NormalizeByMax(scores []float64) []float64 {
	out := make([]float64, len(scores))
	best := 0.0
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
			s = 0
		}
		out[i] = s
		best = max(best, s)
	}
	if best == 0 {
		return out
	}
	for i := range out {
		out[i] /= best
	}
	return out
}

// Combine is the stage-2 score: w·lexicalNorm + (1−w)·cosine.
func Combine(w, lexicalNorm, cosine float64) float64 {
	return w*lexicalNorm + (1-w)*cosine
}

// Candidate is one stage-1 (full-text) hit.
type Candidate struct {
	FragmentID int64
	Lexical    float64   // ts_rank of the query
	Embedding  []float32 // nil when the fragment has no embedding for the query's model
	TrustLevel string    // the trust level of the fragment's domain
}

// Entry is one fragment's scores through the stages. Rank, Rerank and Final
// are set by Finish.
type Entry struct {
	FragmentID  int64
	Rank        int     // 1 = best
	Lexical     float64 // stage 1: raw ts_rank
	LexicalNorm float64 // Lexical / the best Lexical among the candidates
	Cosine      float64 // cosine of query and fragment embeddings; 0 without an embedding
	Stage2      float64 // Combine(w, LexicalNorm, Cosine)
	Rerank      float64 // stage 3: the reranker's raw score
	TrustLevel  string
	TrustWeight float64 // TrustWeight(TrustLevel), > 0
	Final       float64 // the order of the ranking; see Finish
}

// Shortlist is stage 2. It drops candidates of weight 0 (BLOCKED), normalises
// the lexical scores of the rest by their maximum, scores each with
// Combine(w, lexical_norm, cosine) where cosine compares query with the
// candidate's embedding (0 without one), and keeps the n best, ties broken
// by fragment id (lower first). n <= 0 keeps all. w must lie in [0,1].
func Shortlist(cands []Candidate, query []float32, w float64, n int) ([]Entry, error) {
	if !(w >= 0 && w <= 1) {
		return nil, fmt.Errorf("rank: lexical weight %v outside [0,1]", w)
	}
	kept := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		if TrustWeight(c.TrustLevel) > 0 {
			kept = append(kept, c)
		}
	}
	lex := make([]float64, len(kept))
	for i, c := range kept {
		lex[i] = c.Lexical
	}
	norm := NormalizeByMax(lex)
	out := make([]Entry, len(kept))
	for i, c := range kept {
		cos := 0.0
		if c.Embedding != nil {
			cos = models.Cosine(query, c.Embedding)
		}
		out[i] = Entry{FragmentID: c.FragmentID, Lexical: c.Lexical, LexicalNorm: norm[i], Cosine: cos,
			Stage2: Combine(w, norm[i], cos), TrustLevel: c.TrustLevel, TrustWeight: TrustWeight(c.TrustLevel)}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if c := cmp.Compare(b.Stage2, a.Stage2); c != 0 {
			return c
		}
		return cmp.Compare(a.FragmentID, b.FragmentID)
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// Finish is stage 3: it takes one reranker score per entry (in the order of
// entries), computes Final = (rerank − floor) × trust weight, orders by Final
// (ties: higher Stage2 first, then lower fragment id), keeps the k best
// (k <= 0 keeps all) and numbers them from 1. floor is min(0, the lowest
// rerank score): for the usual non-negative scores (BM25, sigmoid
// probabilities) Final is exactly rerank × weight; a reranker answering raw
// logits is shifted so the lowest is 0, since multiplying a negative score by
// a weight below 1 would favour the less trusted. entries is not modified.
func Finish(entries []Entry, rerank []float64, k int) ([]Entry, error) {
	if len(rerank) != len(entries) {
		return nil, fmt.Errorf("rank: %d rerank scores for %d entries", len(rerank), len(entries))
	}
	floor := 0.0
	for i, s := range rerank {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("rank: rerank score %d of fragment %d is %v", i, entries[i].FragmentID, s)
		}
		floor = min(floor, s)
	}
	out := slices.Clone(entries)
	for i := range out {
		out[i].Rerank = rerank[i]
		out[i].Final = (rerank[i] - floor) * out[i].TrustWeight
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if c := cmp.Compare(b.Final, a.Final); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Stage2, a.Stage2); c != 0 {
			return c
		}
		return cmp.Compare(a.FragmentID, b.FragmentID)
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}
