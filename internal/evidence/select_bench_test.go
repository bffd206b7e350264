package evidence

import (
	"fmt"
	"testing"
)

// benchCandidates returns n candidates over 40 domains with pseudo-random
// similarities in [0,1) (a fixed LCG, so every run sees the same input).
func benchCandidates(n int) []Candidate {
	out := make([]Candidate, n)
	x := uint64(7)
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		out[i] = Candidate{
			FragmentID: int64(1000 + i),
			Domain:     fmt.Sprintf("site%02d.example", (x>>33)%40),
			Similarity: float64(x>>11) / float64(1<<53),
		}
	}
	return out
}

// BenchmarkSelectPairs selects the pairs of one claim from 200 candidates
// with the default limits of ARCHITECTURE.md §5.2 (top_k 30, 6 domains, 20 pairs),
// a third of the fragments already judged. Each iteration copies the
// candidates, as SelectPairs reorders them in place.
func BenchmarkSelectPairs(b *testing.B) {
	orig := benchCandidates(200)
	cands := make([]Candidate, len(orig))
	judged := func(id int64) bool { return id%3 == 0 }
	lim := SelectLimits{MinSimilarity: 0.05, TopK: 30, MaxDomains: 6, MaxPairs: 20}
	b.ReportAllocs()
	for b.Loop() {
		copy(cands, orig)
		if sel, _ := SelectPairs(cands, judged, lim); len(sel) == 0 {
			b.Fatal("nothing selected")
		}
	}
}
