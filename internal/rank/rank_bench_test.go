package rank

import (
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// benchRankInput returns n stage-1 candidates with embeddings of dim
// floats, trust levels cycling through every level, and a query vector; a
// fixed LCG makes every run see the same input.
func benchRankInput(n, dim int) ([]Candidate, []float32) {
	x := uint64(11)
	next := func() float64 {
		x = x*6364136223846793005 + 1442695040888963407
		return float64(x>>11) / float64(1<<53)
	}
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(next() - 0.5)
		}
		return v
	}
	levels := []string{Primary, Government, Academic, Trusted, Low, Unverified, Blocked, ""}
	cands := make([]Candidate, n)
	for i := range cands {
		cands[i] = Candidate{FragmentID: int64(500 + i), Lexical: next() * 0.3, TrustLevel: levels[i%len(levels)]}
		if i%10 != 9 { // every tenth fragment has no embedding
			cands[i].Embedding = vec()
		}
	}
	return cands, vec()
}

// BenchmarkShortlist is stage 2 over 100 full-text hits with the default
// rerank config (lexical weight 0.3, keep 50).
func BenchmarkShortlist(b *testing.B) {
	cands, query := benchRankInput(100, builtin.HashEmbedderDim)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Shortlist(cands, query, 0.3, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFinish is stage 3 over a shortlist of 100 (from 100+ hits)
// keeping the top 20.
func BenchmarkFinish(b *testing.B) {
	cands, query := benchRankInput(120, builtin.HashEmbedderDim)
	short, err := Shortlist(cands, query, 0.3, 100)
	if err != nil {
		b.Fatal(err)
	}
	scores := make([]float64, len(short))
	for i := range scores {
		scores[i] = float64((i*37)%100) / 150
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Finish(short, scores, 20); err != nil {
			b.Fatal(err)
		}
	}
}
