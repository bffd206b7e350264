// Package belief is the log-odds belief of a claim (ARCHITECTURE.md §5.8),
// kept beside the Beta posterior (internal/evidence): each supports or
// refutes edge moves the claim's log-odds by an amount that grows with the
// edge's strength (its NLI confidence) and its relevance (the retrieval
// score of the pair when it was judged), a consensus of independent sites
// caps how far the other side can push it, and claims that depend on one
// another pass their belief on along claim links. It is pure: the store
// gathers the inputs in the transaction that changed them.
package belief

import (
	"fmt"
	"math"
)

// Params are the belief's numbers (seed 004's, as defaults; EVF_BELIEF_*
// in internal/config).
type Params struct {
	// LMax is the most log-odds one edge of full relevance moves.
	LMax float64
	// K and X0 shape the strength's sigmoid: k·(strength − x₀).
	K, X0 float64
	// ConsensusSites independent sites agreeing confidently engage the cap.
	ConsensusSites int
	// CapLimit is the belief the other side cannot push a claim past once
	// the cap is engaged: with ≥ ConsensusSites supporting sites the belief
	// stays ≥ CapLimit, with as many refuting sites ≤ 1 − CapLimit.
	CapLimit float64
}

// DefaultParams are seed 004's numbers.
func DefaultParams() Params {
	return Params{LMax: 2, K: 10, X0: 0.5, ConsensusSites: 2, CapLimit: 0.3}
}

// Validate reports numbers the belief cannot use.
func (p Params) Validate() error {
	switch {
	case !(p.LMax >= 0) || math.IsInf(p.LMax, 0):
		return fmt.Errorf("belief: L_max %v must be finite and ≥ 0", p.LMax)
	case !(p.K > 0) || math.IsInf(p.K, 0):
		return fmt.Errorf("belief: k %v must be finite and > 0", p.K)
	case !(p.X0 >= 0 && p.X0 <= 1):
		return fmt.Errorf("belief: x0 %v must be in [0, 1]", p.X0)
	case p.ConsensusSites < 1:
		return fmt.Errorf("belief: consensus sites %d must be ≥ 1", p.ConsensusSites)
	case !(p.CapLimit > 0 && p.CapLimit < 0.5):
		return fmt.Errorf("belief: cap limit %v must be in (0, 0.5)", p.CapLimit)
	}
	return nil
}

// Relations of an edge that move the belief; any other adds nothing.
const (
	Supports = "supports"
	Refutes  = "refutes"
)

// Edge is one NLI edge into a claim.
type Edge struct {
	Relation string
	// Strength is the edge's NLI confidence (1 for a person's correction).
	Strength float64
	// Relevance is the pair's retrieval score when it was judged, in
	// [0, 1] (clamped); the store passes 1 when none was recorded.
	Relevance float64
}

// Evidence is what one claim's belief is computed from: its edges and the
// independent sites that agree on each side confidently, as source
// verification counts them (verification.Outcome).
type Evidence struct {
	Edges           []Edge
	SupportingSites int
	RefutingSites   int
}

// Belief is a claim's log-odds and the probability it stands for.
type Belief struct {
	LogOdds float64
	Belief  float64
	Capped  bool // the consensus cap moved it
}

// Sigmoid is 1 / (1 + e^−x).
func Sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Logit is the inverse of Sigmoid.
func Logit(p float64) float64 { return math.Log(p / (1 - p)) }

// Weight is what one edge adds to the log-odds: ± relevance · L_max ·
// sigmoid(k · (strength − x₀)); 0 for a neutral edge or a strength that is
// not a positive finite number (as the Beta posterior counts them).
func (p Params) Weight(e Edge) float64 {
	var sign float64
	switch e.Relation {
	case Supports:
		sign = 1
	case Refutes:
		sign = -1
	default:
		return 0
	}
	if !(e.Strength > 0) || math.IsInf(e.Strength, 0) {
		return 0
	}
	rel := e.Relevance
	switch {
	case math.IsNaN(rel):
		rel = 1
	case rel < 0:
		rel = 0
	case rel > 1:
		rel = 1
	}
	return sign * rel * p.LMax * Sigmoid(p.K*(min(e.Strength, 1)-p.X0))
}

// Compute is a claim's belief: prior log-odds 0, each edge's Weight added
// once, then the consensus cap: with ≥ ConsensusSites supporting sites the
// log-odds is at least logit(CapLimit), with as many refuting sites at most
// logit(1 − CapLimit); with both, it lies between the two.
func (p Params) Compute(ev Evidence) Belief {
	var lo float64
	for _, e := range ev.Edges {
		lo += p.Weight(e)
	}
	raw := lo
	if ev.SupportingSites >= p.ConsensusSites {
		lo = max(lo, Logit(p.CapLimit))
	}
	if ev.RefutingSites >= p.ConsensusSites {
		lo = min(lo, Logit(1-p.CapLimit))
	}
	return Belief{LogOdds: lo, Belief: Sigmoid(lo), Capped: lo != raw}
}
