// Package retrieval decides where a task's self-directed retrieval spends
// its budget (ARCHITECTURE.md §5.9, after seed 004): which claims to search
// for (EVOI target selection), when a claim's evidence is sufficient or
// escalates, how many result pages a claim may fetch, and what to ask the
// search backend. Pure: the numbers come in, decisions with their numbers
// go out, so every decision can be recorded and explained.
//
// The value model is the seed's; the signals (check-worthiness, harm) are
// heuristics, labelled as such where they are defined.
package retrieval

import (
	"cmp"
	"math"
	"slices"
)

// Budget is a budget class's floor and ceiling on the number of claims
// searched for in stage 1 (safety bounds around the EVOI optimum).
type Budget struct {
	Floor, Ceiling int
}

// Budgets are the budget classes (tasks.budget_class).
var Budgets = map[string]Budget{
	"minimal":  {Floor: 1, Ceiling: 3},
	"standard": {Floor: 2, Ceiling: 5},
	"deep":     {Floor: 3, Ceiling: 30},
}

// Params are the EVOI model's numbers.
type Params struct {
	Value       float64 // value of resolving a claim's uncertainty (1)
	Decay       float64 // diminishing returns per further target (0.85)
	Cost        float64 // marginal cost of one more target, in EVOI units (0.1)
	MinMarginal float64 // below this marginal EVOI no target is added (0.05)
}

// DefaultParams are the seed's numbers; Cost is ours (the seed's is a
// normalised search price).
var DefaultParams = Params{Value: 1, Decay: 0.85, Cost: 0.1, MinMarginal: 0.05}

// Entropy is the Shannon entropy in bits of Bernoulli(p): 1 at p = 0.5, 0
// at 0 and 1.
func Entropy(p float64) float64 {
	if !(p > 0 && p < 1) {
		return 0
	}
	return -(p*math.Log2(p) + (1-p)*math.Log2(1-p))
}

// Claim is what EVOI knows of a claim.
type Claim struct {
	Belief      float64 // the claim's current belief, in [0, 1]
	Worthiness  float64 // check-worthiness in [0, 1] (Worthiness)
	Harm        float64 // harm proxy in [0, 1] (Harm)
	Independent int     // independent sites already confidently judging it
}

// EVOI is a claim's expected value of information: Value · H(belief) ·
// worthiness · (½ + ½·harm) · confidence factor, where the confidence
// factor is 1 / (1 + independent sites) — a claim already judged by
// independent sites gains less from another search.
func EVOI(c Claim, p Params) float64 {
	return p.Value * Entropy(c.Belief) * clamp01(c.Worthiness) * (0.5 + 0.5*clamp01(c.Harm)) / float64(1+max(0, c.Independent))
}

// Why the greedy selection stopped.
const (
	StopMinMarginal = "marginal_below_min"  // the next marginal EVOI is below MinMarginal
	StopCost        = "marginal_below_cost" // the next marginal EVOI is below its cost
	StopCeiling     = "ceiling"             // the budget class's ceiling
	StopExhausted   = "claims_exhausted"    // every claim is a target
)

// Selection is EVOI target selection's decision with its numbers.
type Selection struct {
	K         int       `json:"k"`          // targets: the first K of Order
	Optimum   int       `json:"optimum"`    // k* before the budget's floor
	Order     []int     `json:"order"`      // claim indices by EVOI, highest first (ties: lower index)
	EVOI      []float64 `json:"evoi"`       // EVOI of the claims in Order
	Marginal  []float64 `json:"marginal"`   // EVOI_i·decay^i for i = 1…considered
	Objective []float64 `json:"objective"`  // J(k) = Σ_{i≤k} marginal_i − cost·k, k = 0…considered
	Stop      string    `json:"stop"`       // why no further target was considered
	Floor     bool      `json:"floor_used"` // K was raised to the budget's floor
}

// Select picks the claims to search for: k* = argmax_k Σ_{i≤k} EVOI_i ·
// decay^i − cost·k over the claims by EVOI, considering targets while the
// marginal EVOI is at least MinMarginal and at least its cost and the
// budget's ceiling allows; then at least the budget's floor (as many
// claims as there are). Ties of J keep the smaller k.
func Select(evoi []float64, b Budget, p Params) Selection {
	order := make([]int, len(evoi))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(evoi[y], evoi[x]) })
	s := Selection{Order: order, Objective: []float64{0}}
	for _, i := range order {
		s.EVOI = append(s.EVOI, evoi[i])
	}
	limit := min(b.Ceiling, len(evoi))
	decay := 1.0
	sum := 0.0
	for k := 1; ; k++ {
		if k > limit {
			s.Stop = StopCeiling
			if limit == len(evoi) {
				s.Stop = StopExhausted
			}
			break
		}
		decay *= p.Decay
		m := s.EVOI[k-1] * decay
		if m < p.MinMarginal {
			s.Stop = StopMinMarginal
			break
		}
		if m < p.Cost {
			s.Stop = StopCost
			break
		}
		sum += m
		s.Marginal = append(s.Marginal, m)
		s.Objective = append(s.Objective, sum-p.Cost*float64(k))
	}
	for k, j := range s.Objective {
		if j > s.Objective[s.Optimum] {
			s.Optimum = k
		}
	}
	s.K = s.Optimum
	if floor := min(b.Floor, len(evoi)); s.K < floor {
		s.K, s.Floor = floor, true
	}
	return s
}

func clamp01(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}
