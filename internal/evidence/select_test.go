package evidence

import (
	"fmt"
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

func TestFuseRanksCombinesRecallOrderAndCosine(t *testing.T) {
	t.Parallel()
	// Recall order (best lexical match first): 1, 2, 3. Cosine ranks: 3, 2, 1.
	cands := []Candidate{
		{FragmentID: 1, Similarity: 0.1},
		{FragmentID: 2, Similarity: 0.5},
		{FragmentID: 3, Similarity: 0.9},
		{FragmentID: 4, Similarity: 0.01}, // below the floor below
	}
	FuseRanks(cands)
	// 1 and 3 are first on one list and third on the other, 2 second on
	// both: 1/61 + 1/63 > 2/62, so 1 and 3 tie above 2, and their tie goes
	// to the higher cosine.
	if !(cands[0].Fused == cands[2].Fused && cands[2].Fused > cands[1].Fused && cands[1].Fused > cands[3].Fused) {
		t.Fatalf("fused %v %v %v %v", cands[0].Fused, cands[1].Fused, cands[2].Fused, cands[3].Fused)
	}
	sel, _ := SelectPairs(cands, nil, SelectLimits{MinSimilarity: 0.05, TopK: 3, MaxPairs: 3})
	var ids []int64
	for _, c := range sel {
		ids = append(ids, c.FragmentID)
	}
	if len(ids) != 3 || ids[0] != 3 || ids[1] != 1 || ids[2] != 2 {
		t.Errorf("selected %v, want [3 1 2]: fused order, ties by cosine, the fragment below the floor left out", ids)
	}
}
