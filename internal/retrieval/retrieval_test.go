package retrieval

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEntropy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ p, want float64 }{
		{0.5, 1}, {0, 0}, {1, 0}, {0.25, 0.8112781244591328}, {0.75, 0.8112781244591328}, {math.NaN(), 0},
	} {
		if got := Entropy(c.p); !near(got, c.want) {
			t.Errorf("Entropy(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestEVOI(t *testing.T) {
	t.Parallel()
	p := DefaultParams
	for _, c := range []struct {
		name string
		c    Claim
		want float64
	}{
		{"undecided, worthy, harmful, unjudged", Claim{Belief: 0.5, Worthiness: 1, Harm: 1}, 1},
		{"no harm halves it", Claim{Belief: 0.5, Worthiness: 1, Harm: 0}, 0.5},
		{"two independent sites: a third", Claim{Belief: 0.5, Worthiness: 1, Harm: 1, Independent: 2}, 1.0 / 3},
		{"decided claim: nothing to learn", Claim{Belief: 1, Worthiness: 1, Harm: 1}, 0},
		{"belief 0.25, worthiness 0.4", Claim{Belief: 0.25, Worthiness: 0.4, Harm: 0}, 0.8112781244591328 * 0.4 * 0.5},
	} {
		if got := EVOI(c.c, p); !near(got, c.want) {
			t.Errorf("%s: EVOI = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSelect: k* for each budget class at its floor, its ceiling and an
// interior optimum, with the numbers worked by hand.
func TestSelect(t *testing.T) {
	t.Parallel()
	p := DefaultParams // decay 0.85, cost 0.1, min marginal 0.05
	ones := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	for _, c := range []struct {
		name    string
		budget  string
		evoi    []float64
		k, opt  int
		stop    string
		floored bool
	}{
		// 0.03·0.85 = 0.0255 < 0.05: no target is worth it; the floor decides.
		{"minimal at its floor", "minimal", []float64{0.01, 0.03, 0.02}, 1, 0, StopMinMarginal, true},
		{"standard at its floor", "standard", []float64{0.01, 0.03, 0.02}, 2, 0, StopMinMarginal, true},
		{"deep at its floor", "deep", []float64{0.01, 0.03, 0.02, 0.04}, 3, 0, StopMinMarginal, true},
		// 0.85, 0.7225, 0.614 all above the cost: the ceiling stops.
		{"minimal at its ceiling", "minimal", ones(5), 3, 3, StopCeiling, false},
		// 0.85^k ≥ 0.1 up to k = 14 (0.85^15 = 0.087 < 0.1): under the ceiling.
		{"standard at its ceiling", "standard", ones(8), 5, 5, StopCeiling, false},
		{"deep: interior optimum", "deep", ones(40), 14, 14, StopCost, false},
		// 0.85, 0.9·0.7225 = 0.650, 0.2·0.614 = 0.123, then 0.1·0.522 = 0.052 < 0.1.
		{"standard: interior optimum", "standard", []float64{0.2, 1, 0.1, 0.9}, 3, 3, StopCost, false},
		{"deep, fewer claims than its floor", "deep", []float64{0.01, 0.02}, 2, 0, StopMinMarginal, true},
		{"every claim worth it", "deep", ones(4), 4, 4, StopExhausted, false},
	} {
		s := Select(c.evoi, Budgets[c.budget], p)
		if s.K != c.k || s.Optimum != c.opt || s.Stop != c.stop || s.Floor != c.floored {
			t.Errorf("%s: k %d (optimum %d, stop %s, floor %v), want %d (%d, %s, %v); marginals %v",
				c.name, s.K, s.Optimum, s.Stop, s.Floor, c.k, c.opt, c.stop, c.floored, s.Marginal)
		}
	}
	s := Select([]float64{0.2, 1, 0.1, 0.9}, Budgets["standard"], p)
	if !reflect.DeepEqual(s.Order, []int{1, 3, 0, 2}) {
		t.Errorf("order %v, want by EVOI [1 3 0 2]", s.Order)
	}
	if want := 0.85 + 0.9*0.7225 + 0.2*0.614125 - 0.3; !near(s.Objective[3], want) {
		t.Errorf("J(3) = %v, want %v", s.Objective[3], want)
	}
}

func TestWorthinessAndHarm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		claim      string
		worthiness float64
		harm       float64
	}{
		{"Sea level rise is accelerating.", 0.4, 0},                                              // a change only
		{"Global temperatures rose by 1.1 °C between 1880 and 2020, according to NASA.", 1.0, 0}, // number, years, entity, change
		{"Vaccines cause autism in children.", 0.2, 1},
		{"The sky is blue.", 0.2, 0},
		{"Heat waves killed 70,000 people in Europe in August 2003.", 0.8, 1},
	} {
		if got := Worthiness(c.claim); !near(got, c.worthiness) {
			t.Errorf("Worthiness(%q) = %v, want %v", c.claim, got, c.worthiness)
		}
		if got := Harm(c.claim); got != c.harm {
			t.Errorf("Harm(%q) = %v, want %v", c.claim, got, c.harm)
		}
	}
}

func TestConstraints(t *testing.T) {
	t.Parallel()
	claim := "Sea level rose 21 cm between 1880 and 2020, and 3.6 mm a year in May."
	if got, want := Constraints(claim), []string{"1880", "2020", "may", "21", "3.6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Constraints = %q, want %q", got, want)
	}
	supporting := []string{"Since 1880 the sea has risen by about 21 cm.", "In 2020 it rose fastest."}
	if got := MissingConstraints(claim, supporting); got != 2 { // may, 3.6
		t.Errorf("MissingConstraints = %d, want 2 (may, 3.6)", got)
	}
}

func TestQueries(t *testing.T) {
	t.Parallel()
	claim := "Global temperatures rose by 1.1 °C between 1880 and 2020, according to NASA."
	qs := Queries(claim, 3)
	t.Logf("queries: %q", qs)
	if len(qs) == 0 || len(qs) > 3 {
		t.Fatalf("Queries = %q, want 1 to 3", qs)
	}
	if !strings.Contains(strings.Join(qs, " | "), "NASA") || !strings.Contains(strings.Join(qs, " | "), "1.1") {
		t.Errorf("Queries = %q: want the entity and the number asked for", qs)
	}
	for i := range qs {
		for j := range i {
			if overlap(strings.Fields(qs[i]), strings.Fields(qs[j])) >= 0.8 {
				t.Errorf("queries %q and %q are near-duplicates", qs[j], qs[i])
			}
		}
		if n := len(strings.Fields(qs[i])); n > MaxQueryTerms {
			t.Errorf("query %q has %d words, more than %d", qs[i], n, MaxQueryTerms)
		}
	}
	if got := Queries(claim, 1); len(got) != 1 || got[0] != qs[0] {
		t.Errorf("Queries(…, 1) = %q, want the first of %q", got, qs)
	}
	if got := Queries("It is what it is.", 3); len(got) != 0 {
		t.Errorf("a claim of function words gives queries %q, want none", got)
	}
	if got := Queries("Sea level rise is accelerating.", 3); len(got) != 1 {
		t.Errorf("a claim without entities or numbers: %q, want one query (the others repeat it)", got)
	}
}

func TestSufficiency(t *testing.T) {
	t.Parallel()
	w := DefaultWeights
	e := Evidence{SupportingSites: 2, SupportMass: 1.7, ConflictMass: 0.8, MissingConstraints: 1}
	if got, want := Sufficiency(e, w), 2+0.5*1.7-0.5*0.8-0.5; !near(got, want) {
		t.Errorf("Sufficiency = %v, want %v", got, want)
	}
}

// TestNextFetch: a claim with weak evidence buys more than two fetches; a
// claim that is already decided or sufficient stops at the floor.
func TestNextFetch(t *testing.T) {
	t.Parallel()
	w, p := DefaultWeights, DefaultFetch
	count := func(belief, s float64) (int, string) {
		n := 0
		for {
			ok, _, why := NextFetch(n, belief, s, w, p)
			if !ok {
				return n, why
			}
			n++
		}
	}
	// Undecided, nothing found: 0.85^n ≥ 0.25 up to n = 8 (0.85^9 = 0.23).
	if n, why := count(0.5, 0); n != 9 || why != FetchCheap {
		t.Errorf("weak evidence: %d fetches (%s), want 9 (below_cost)", n, why)
	}
	// Half way to sufficient: 0.75·0.85^n ≥ 0.25 up to n = 6.
	if n, why := count(0.5, 1); n != 7 || why != FetchCheap {
		t.Errorf("some evidence: %d fetches (%s), want 7", n, why)
	}
	if n, why := count(0.95, 0); n != 2 || why != FetchCheap {
		t.Errorf("a decided claim: %d fetches (%s), want the floor 2", n, why)
	}
	if n, why := count(0.5, 2); n != 2 || why != FetchEnough {
		t.Errorf("a sufficient claim: %d fetches (%s), want the floor 2 (sufficient)", n, why)
	}
	p.Cost = 0
	if n, why := count(0.5, 0); n != p.Max || why != FetchCeiling {
		t.Errorf("free fetches: %d (%s), want the ceiling %d", n, why, p.Max)
	}
}
