package belief_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/belief"
)

const tol = 1e-4

// TestCompute checks the belief against values computed by hand with the
// default numbers (L_max 2, k 10, x₀ 0.5, cap at 2 sites and 0.3).
func TestCompute(t *testing.T) {
	t.Parallel()
	sup := func(s, r float64) belief.Edge {
		return belief.Edge{Relation: belief.Supports, Strength: s, Relevance: r}
	}
	ref := func(s, r float64) belief.Edge {
		return belief.Edge{Relation: belief.Refutes, Strength: s, Relevance: r}
	}
	for _, tt := range []struct {
		name       string
		ev         belief.Evidence
		logOdds, p float64
		wantCapped bool
	}{
		{"no evidence", belief.Evidence{}, 0, 0.5, false},
		// 2·sigmoid(0) = 1
		{"one support at 0.5", belief.Evidence{Edges: []belief.Edge{sup(0.5, 1)}}, 1, 0.73106, false},
		// 2·sigmoid(4) = 1.96403
		{"one support at 0.9", belief.Evidence{Edges: []belief.Edge{sup(0.9, 1)}}, 1.96403, 0.87697, false},
		{"relevance halves it", belief.Evidence{Edges: []belief.Edge{sup(0.9, 0.5)}}, 0.98201, 0.72752, false},
		{"relevance clamped to 1", belief.Evidence{Edges: []belief.Edge{sup(0.9, 3)}}, 1.96403, 0.87697, false},
		{"neutral adds nothing", belief.Evidence{Edges: []belief.Edge{{Relation: "neutral", Strength: 0.99, Relevance: 1}}}, 0, 0.5, false},
		{"zero strength adds nothing", belief.Evidence{Edges: []belief.Edge{sup(0, 1)}}, 0, 0.5, false},
		// 2·sigmoid(4) − 2·sigmoid(3) = 1.96403 − 1.90515
		{"support and refute", belief.Evidence{Edges: []belief.Edge{sup(0.9, 1), ref(0.8, 1)}}, 0.05888, 0.51472, false},
		// three refutes of 0.9: −5.89208; with 2 supporting sites the floor is logit(0.3) = −0.84730
		{"cap engaged", belief.Evidence{Edges: []belief.Edge{ref(0.9, 1), ref(0.9, 1), ref(0.9, 1)}, SupportingSites: 2}, -0.84730, 0.3, true},
		{"cap not engaged with one site", belief.Evidence{Edges: []belief.Edge{ref(0.9, 1), ref(0.9, 1), ref(0.9, 1)}, SupportingSites: 1}, -5.89208, 0.00275, false},
		{"cap engaged on the refuting side", belief.Evidence{Edges: []belief.Edge{sup(0.9, 1), sup(0.9, 1), sup(0.9, 1)}, RefutingSites: 2}, 0.84730, 0.7, true},
		{"cap on the agreeing side does nothing", belief.Evidence{Edges: []belief.Edge{sup(0.9, 1), sup(0.9, 1), sup(0.9, 1)}, SupportingSites: 3}, 5.89208, 0.99725, false},
		{"both sides: between the limits", belief.Evidence{Edges: []belief.Edge{sup(0.9, 1), sup(0.9, 1)}, SupportingSites: 2, RefutingSites: 2}, 0.84730, 0.7, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := belief.DefaultParams().Compute(tt.ev)
			if math.Abs(got.LogOdds-tt.logOdds) > tol || math.Abs(got.Belief-tt.p) > tol || got.Capped != tt.wantCapped {
				t.Errorf("got %+v, want log-odds %.5f belief %.5f capped %v", got, tt.logOdds, tt.p, tt.wantCapped)
			}
		})
	}
}

// TestNoiseTolerance: four strong supports (0.95) give log-odds 7.911
// (belief 0.99963); five weak refutations (strength 0.55, relevance 0.5)
// add 5 · 0.5 · 2 · sigmoid(0.5) = −3.112 between them, leaving 4.800
// (belief 0.99184): the belief moves by less than 0.01.
func TestNoiseTolerance(t *testing.T) {
	t.Parallel()
	p := belief.DefaultParams()
	var edges []belief.Edge
	for range 4 {
		edges = append(edges, belief.Edge{Relation: belief.Supports, Strength: 0.95, Relevance: 1})
	}
	strong := p.Compute(belief.Evidence{Edges: edges})
	for range 5 {
		edges = append(edges, belief.Edge{Relation: belief.Refutes, Strength: 0.55, Relevance: 0.5})
	}
	noisy := p.Compute(belief.Evidence{Edges: edges})
	if math.Abs(strong.LogOdds-7.91210) > tol || math.Abs(noisy.LogOdds-4.79981) > tol {
		t.Errorf("log-odds %.5f → %.5f, want 7.91210 → 4.79981", strong.LogOdds, noisy.LogOdds)
	}
	if d := strong.Belief - noisy.Belief; !(d > 0 && d < 0.01) {
		t.Errorf("five weak refutations moved the belief by %.5f (%.5f → %.5f), want less than 0.01", d, strong.Belief, noisy.Belief)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	if err := belief.DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	p := belief.DefaultParams()
	p.CapLimit = 0.5
	if p.Validate() == nil {
		t.Error("cap limit 0.5 accepted")
	}
	// other numbers change the weight: L_max 1, k 5, x₀ 0.6 → 1·sigmoid(5·0.3)
	p = belief.Params{LMax: 1, K: 5, X0: 0.6, ConsensusSites: 2, CapLimit: 0.3}
	if got := p.Weight(belief.Edge{Relation: belief.Supports, Strength: 0.9, Relevance: 1}); math.Abs(got-0.81757) > tol {
		t.Errorf("weight %.5f, want 0.81757", got)
	}
}

// TestPropagate: E1 (local 2) ← E2 (local 0.5, depends on E1, weight 0.5)
// ← E3 (local 0.25, contradicts E2 with weight 1, depends on E1 with
// weight 0.25) ← E4 (local 0, depends on E3). By hand: E2 = 0.5 + 2·0.5 =
// 1.5; E3 = 0.25 − 1.5 + 2·0.25 = −0.75; E4 = 0 + (−0.75) = −0.75 (E3's
// propagated log-odds flows on, not its local 0.25); E5 has no links.
func TestPropagate(t *testing.T) {
	t.Parallel()
	local := map[int64]float64{1: 2, 2: 0.5, 3: 0.25, 4: 0, 5: 0.7}
	links := []belief.Link{
		{From: 4, To: 3, Relation: belief.DependsOn, Weight: 1},
		{From: 3, To: 2, Relation: belief.Contradicts, Weight: 1},
		{From: 3, To: 1, Relation: belief.DependsOn, Weight: 0.25},
		{From: 2, To: 1, Relation: belief.DependsOn, Weight: 0.5},
	}
	got, err := belief.Propagate(local, links)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]float64{1: 2, 2: 1.5, 3: -0.75, 4: -0.75, 5: 0.7}
	for id, w := range want {
		if math.Abs(got[id]-w) > 1e-12 {
			t.Errorf("E%d propagated %.5f, want %.5f", id, got[id], w)
		}
	}
	if d := belief.Descendants(links, []int64{2}); !slices.Equal(d, []int64{3, 4}) {
		t.Errorf("descendants of E2 %v, want [3 4]", d)
	}
}

func TestCycle(t *testing.T) {
	t.Parallel()
	links := []belief.Link{{From: 1, To: 3, Relation: belief.DependsOn, Weight: 1}, {From: 3, To: 2, Relation: belief.DependsOn, Weight: 1}}
	if c := belief.CycleFrom(links, 2); c != nil {
		t.Errorf("cycle %v in a chain", c)
	}
	links = append(links, belief.Link{From: 2, To: 1, Relation: belief.Contradicts, Weight: 1})
	if c := belief.CycleFrom(links, 2); !slices.Equal(c, []int64{2, 1, 3, 2}) {
		t.Errorf("cycle %v, want [2 1 3 2]", c)
	}
	var ec *belief.ErrCycle
	if _, err := belief.Propagate(nil, links); !errors.As(err, &ec) || len(ec.Path) != 4 {
		t.Errorf("propagate over a cycle: %v", err)
	}
}
