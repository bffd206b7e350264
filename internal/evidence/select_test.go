package evidence

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func cands(spec ...string) []Candidate {
	// spec: "id:domain:sim"
	out := make([]Candidate, 0, len(spec))
	for _, s := range spec {
		var c Candidate
		var dom string
		if _, err := fmt.Sscanf(s, "%d %s %g", &c.FragmentID, &dom, &c.Similarity); err != nil {
			panic(err)
		}
		c.Domain = dom
		out = append(out, c)
	}
	return out
}

func ids(cs []Candidate) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.FragmentID
	}
	return out
}

func TestSelectPairs(t *testing.T) {
	t.Parallel()
	judgedSet := func(ids ...int64) func(int64) bool {
		m := map[int64]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return func(id int64) bool { return m[id] }
	}
	tests := []struct {
		name        string
		cands       []Candidate
		judged      func(int64) bool
		lim         SelectLimits
		want        []int64
		wantSkipped int
	}{
		{
			name:  "similarity floor and order",
			cands: cands("1 a 0.5", "2 b 0.9", "3 c 0.7", "4 d 0.54"),
			lim:   SelectLimits{MinSimilarity: 0.55, TopK: 30, MaxDomains: 6, MaxPairs: 20},
			want:  []int64{2, 3},
		},
		{
			name:  "top_k before pairs cut",
			cands: cands("1 a 0.9", "2 a 0.8", "3 a 0.7"),
			lim:   SelectLimits{TopK: 2, MaxDomains: 6, MaxPairs: 20},
			want:  []int64{1, 2},
		},
		{
			name:  "domain cap keeps first domains in rank order",
			cands: cands("1 a 0.9", "2 b 0.85", "3 c 0.8", "4 a 0.7", "5 c 0.6"),
			lim:   SelectLimits{TopK: 30, MaxDomains: 2, MaxPairs: 20},
			want:  []int64{1, 2, 4},
		},
		{
			name:        "judged dropped after ranking, then cut",
			cands:       cands("1 a 0.9", "2 a 0.8", "3 a 0.7", "4 a 0.6"),
			judged:      judgedSet(1, 3),
			lim:         SelectLimits{TopK: 3, MaxDomains: 6, MaxPairs: 1},
			want:        []int64{2},
			wantSkipped: 2,
		},
		{
			name:        "re-run with everything judged judges nothing",
			cands:       cands("1 a 0.9", "2 b 0.8"),
			judged:      judgedSet(1, 2),
			lim:         SelectLimits{TopK: 30, MaxDomains: 6, MaxPairs: 20},
			want:        []int64{},
			wantSkipped: 2,
		},
		{
			name:  "ties broken by fragment id",
			cands: cands("9 a 0.8", "3 b 0.8", "5 c 0.8"),
			lim:   SelectLimits{TopK: 2, MaxDomains: 6, MaxPairs: 20},
			want:  []int64{3, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, skipped := SelectPairs(tt.cands, tt.judged, tt.lim)
			if fmt.Sprint(ids(got)) != fmt.Sprint(tt.want) {
				t.Errorf("selected %v, want %v", ids(got), tt.want)
			}
			if skipped != tt.wantSkipped {
				t.Errorf("skipped %d, want %d", skipped, tt.wantSkipped)
			}
		})
	}
}

func TestFuseScoresAddsStandardisedScores(t *testing.T) {
	t.Parallel()
	cands := []Candidate{
		{FragmentID: 1, Lexical: 9, Similarity: 0.2}, // clear lexical winner, middling cosine
		{FragmentID: 2, Lexical: 2, Similarity: 0.3},
		{FragmentID: 3, Lexical: 1, Similarity: 0.4},  // best cosine, weakest lexical match
		{FragmentID: 4, Lexical: 4, Similarity: 0.01}, // below the floor below
	}
	FuseScores(cands)
	z := func(xs []float64, i int) float64 { // population z-score of xs[i]
		var mean, sq float64
		for _, x := range xs {
			mean += x / float64(len(xs))
		}
		for _, x := range xs {
			sq += (x - mean) * (x - mean)
		}
		return (xs[i] - mean) / math.Sqrt(sq/float64(len(xs)))
	}
	lex, cos := []float64{9, 2, 1, 4}, []float64{0.2, 0.3, 0.4, 0.01}
	for i, c := range cands {
		if want := z(lex, i) + z(cos, i); math.Abs(c.Fused-want) > 1e-9 {
			t.Errorf("fragment %d: fused %.5f, want %.5f", c.FragmentID, c.Fused, want)
		}
	}
	sel, _ := SelectPairs(cands, nil, SelectLimits{MinSimilarity: 0.05, TopK: 3, MaxPairs: 3})
	var ids []int64
	for _, c := range sel {
		ids = append(ids, c.FragmentID)
	}
	// 1's lexical margin outweighs its middling cosine; 3's best cosine
	// outweighs its weakest lexical score against 2; 4 is below the
	// cosine floor, but its lexical evidence keeps it in the fused order
	// (last: its cosine is far below the others').
	if !slices.Equal(ids, []int64{1, 3, 2}) {
		t.Errorf("selected %v, want [1 3 2]: fused order", ids)
	}
	FuseScores(cands)
	sel, _ = SelectPairs(cands, nil, SelectLimits{MinSimilarity: 0.05, TopK: 4, MaxPairs: 4})
	if len(sel) != 4 || sel[3].FragmentID != 4 {
		t.Errorf("selected %v, want fragment 4 kept last despite the floor: it has lexical evidence", sel)
	}
}

func TestFuseScoresIgnoresConstantAndNonFiniteSignals(t *testing.T) {
	t.Parallel()
	// No lexical scores (all 0): the cosine alone orders; a NaN cosine adds
	// nothing and does not spoil the others' statistics.
	cands := []Candidate{
		{FragmentID: 1, Similarity: 0.1},
		{FragmentID: 2, Similarity: math.NaN()},
		{FragmentID: 3, Similarity: 0.3},
	}
	FuseScores(cands)
	if math.Abs(cands[0].Fused+1) > 1e-9 || cands[1].Fused != 0 || math.Abs(cands[2].Fused-1) > 1e-9 {
		t.Errorf("fused %v %v %v, want -1 0 1", cands[0].Fused, cands[1].Fused, cands[2].Fused)
	}
	one := []Candidate{{FragmentID: 1, Lexical: 3, Similarity: 0.5}}
	if FuseScores(one); one[0].Fused != 0 {
		t.Errorf("a single candidate fused %v, want 0", one[0].Fused)
	}
	FuseScores(nil) // must not panic
}

func TestSelectPairsPassesOverFusedCandidatesBelowTheFloor(t *testing.T) {
	t.Parallel()
	// In fused order a candidate below the cosine floor may come before ones
	// above it: without lexical evidence it is passed over, not the end of
	// the selection; with lexical evidence (4) the floor does not apply.
	cands := []Candidate{
		{FragmentID: 1, Similarity: 0.01, Fused: 3},
		{FragmentID: 4, Similarity: 0.01, Lexical: 2, Fused: 2},
		{FragmentID: 2, Similarity: 0.2, Fused: 1},
		{FragmentID: 3, Similarity: 0.3, Fused: -1},
	}
	sel, _ := SelectPairs(cands, nil, SelectLimits{MinSimilarity: 0.05, TopK: 4, MaxPairs: 4})
	var ids []int64
	for _, c := range sel {
		ids = append(ids, c.FragmentID)
	}
	if !slices.Equal(ids, []int64{4, 2, 3}) {
		t.Errorf("selected %v, want [4 2 3]", ids)
	}
}

func TestSelectPairsKeepsUnfusedLexicalCandidatesBelowTheFloor(t *testing.T) {
	t.Parallel()
	// Unfused, in similarity order: a lexically recalled candidate below
	// the floor is kept, one without lexical evidence is not, and the
	// first one below the floor does not end the selection.
	cands := []Candidate{
		{FragmentID: 1, Similarity: 0.3},
		{FragmentID: 2, Similarity: 0.02},
		{FragmentID: 3, Similarity: 0.01, Lexical: 1.5},
	}
	sel, _ := SelectPairs(cands, nil, SelectLimits{MinSimilarity: 0.05, TopK: 3, MaxPairs: 3})
	if len(sel) != 2 || sel[0].FragmentID != 1 || sel[1].FragmentID != 3 {
		t.Errorf("selected %v, want fragments 1 and 3", sel)
	}
}
