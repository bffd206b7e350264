package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"testing"
)

// goldenSelectDigest pins SelectPairs' output (selection, order, skipped
// count and the reordered input) on pseudo-random candidates with ties,
// duplicate ids, NaN and infinite similarities, for many limits. It was
// computed before SelectPairs' performance work.
const goldenSelectDigest = "671737caf4f9c16479b46de005d5563cd2d46ce16f5acdebfd71b8bb29403dd6"

func TestSelectPairsGolden(t *testing.T) {
	t.Parallel()
	x := uint64(2024)
	next := func(n uint64) uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x % n
	}
	h := sha256.New()
	limits := []SelectLimits{
		{MinSimilarity: 0.05, TopK: 30, MaxDomains: 6, MaxPairs: 20},
		{MinSimilarity: 0, TopK: 0, MaxDomains: 0, MaxPairs: 0},
		{MinSimilarity: 0.5, TopK: 5, MaxDomains: 1, MaxPairs: 3},
		{MinSimilarity: -1, TopK: 100, MaxDomains: 40, MaxPairs: 50},
		{MinSimilarity: math.Inf(-1), TopK: 7, MaxDomains: 2, MaxPairs: 0},
	}
	for trial := range 300 {
		n := int(next(260))
		orig := make([]Candidate, n)
		for i := range orig {
			c := Candidate{FragmentID: int64(next(uint64(n + 1))), Domain: fmt.Sprintf("d%d", next(12))}
			switch next(20) {
			case 0:
				c.Similarity = math.NaN()
			case 1:
				c.Similarity = math.Inf(1)
			case 2:
				c.Similarity = math.Inf(-1)
			default:
				c.Similarity = float64(next(40)) / 40 // many ties
			}
			orig[i] = c
		}
		for li, lim := range limits {
			cs := append([]Candidate(nil), orig...)
			judged := func(id int64) bool { return (id+int64(trial+li))%4 == 0 }
			if li == 1 {
				judged = nil
			}
			sel, skipped := SelectPairs(cs, judged, lim)
			if sel != nil && len(sel) == 0 {
				t.Errorf("trial %d limits %d: empty selection is not nil", trial, li)
			}
			fmt.Fprintf(h, "%d %d %d|", trial, li, skipped)
			for _, c := range sel {
				fmt.Fprintf(h, "%d,%s,%x;", c.FragmentID, c.Domain, math.Float64bits(c.Similarity))
			}
			h.Write([]byte("|"))
			for _, c := range cs {
				fmt.Fprintf(h, "%d,%s,%x;", c.FragmentID, c.Domain, math.Float64bits(c.Similarity))
			}
			h.Write([]byte("\n"))
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenSelectDigest {
		t.Errorf("SelectPairs digest = %q, want %q: the output changed", got, goldenSelectDigest)
	}
}
