package retrieval

import (
	"math"
	"slices"
	"strings"
)

// MaxQueryTerms bounds the words of one generated query.
const MaxQueryTerms = 10

// Queries are at most most search queries for a claim, each a different
// angle on it: its key words (no numbers); its entities, numbers and years
// with its two longest key words; its first three key words with its
// constraints. A query mostly contained in an earlier one or containing it
// (overlap coefficient |a∩b| / min(|a|, |b|) ≥ 0.8) is a near-duplicate
// and dropped, and so is an empty one.
func Queries(claim string, most int) []string {
	terms := keyTerms(claim)
	ents := entities(claim)
	cons := Constraints(claim)
	var candidates [][]string
	var words []string
	for _, w := range terms {
		if !hasDigit(w) {
			words = append(words, w)
		}
	}
	candidates = append(candidates, first(words, MaxQueryTerms))
	longest := slices.Clone(words)
	slices.SortStableFunc(longest, func(a, b string) int { return len([]rune(b)) - len([]rune(a)) })
	var q2 []string
	for _, w := range ents {
		q2 = appendNew(q2, w)
	}
	for _, w := range terms {
		if hasDigit(w) {
			q2 = appendNew(q2, w)
		}
	}
	for _, w := range first(longest, 2) {
		q2 = appendNew(q2, w)
	}
	candidates = append(candidates, first(q2, MaxQueryTerms))
	q3 := first(terms, 3)
	for _, c := range cons {
		q3 = appendNew(q3, c)
	}
	candidates = append(candidates, first(q3, MaxQueryTerms))

	var out []string
	var kept [][]string
	for _, c := range candidates {
		if len(out) >= most || len(c) == 0 {
			continue
		}
		if slices.ContainsFunc(kept, func(k []string) bool { return overlap(k, c) >= 0.8 }) {
			continue
		}
		kept = append(kept, c)
		out = append(out, strings.Join(c, " "))
	}
	return out
}

func first(ws []string, n int) []string {
	return slices.Clone(ws[:min(n, len(ws))])
}

func appendNew(ws []string, w string) []string {
	if slices.ContainsFunc(ws, func(x string) bool { return strings.EqualFold(x, w) }) {
		return ws
	}
	return append(ws, w)
}

// overlap is |a ∩ b| / min(|a|, |b|) of two word sets, case-folded.
func overlap(a, b []string) float64 {
	set := map[string]int{}
	for _, w := range a {
		set[strings.ToLower(w)] |= 1
	}
	for _, w := range b {
		set[strings.ToLower(w)] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	return float64(both) / float64(min(len(a), len(b)))
}

// Evidence is what the graph says of a claim, for its sufficiency.
type Evidence struct {
	SupportingSites    int     // independent sites confidently supporting it
	SupportMass        float64 // Σ confidence of its supporting edges
	ConflictMass       float64 // Σ confidence of its refuting edges
	MissingConstraints int     // its numbers and dates no supporting fragment states
}

// Weights are the sufficiency formula's weights and threshold.
type Weights struct {
	Sites, Support, Conflict, Missing float64
	Min                               float64 // S_min: below it a claim escalates
}

// DefaultWeights: a claim is sufficient with two independent supporting
// sites and nothing against it, or one site with strong support mass.
var DefaultWeights = Weights{Sites: 1, Support: 0.5, Conflict: 0.5, Missing: 0.5, Min: 2}

// Sufficiency is S = w1·independent supporting sites + w2·support mass −
// w3·conflict mass − w4·missing constraints.
func Sufficiency(e Evidence, w Weights) float64 {
	return w.Sites*float64(e.SupportingSites) + w.Support*e.SupportMass - w.Conflict*e.ConflictMass - w.Missing*float64(e.MissingConstraints)
}

// FetchParams are a claim's fetch budget: the seed's evidence acquisition
// ladder.
type FetchParams struct {
	Value    float64 // 1
	Decay    float64 // 0.85 per fetch already made
	Cost     float64 // a fetch's cost in EVOI units (0.25)
	Min, Max int     // fetches always made (2) and never exceeded (12)
}

// DefaultFetch are the fetch budget's numbers. The seed's cost (0.5) with
// its value model stops every claim after its two first fetches; 0.25
// lets weak evidence buy up to nine.
var DefaultFetch = FetchParams{Value: 1, Decay: 0.85, Cost: 0.25, Min: 2, Max: 12}

// Why a claim's fetching goes on or stops.
const (
	FetchFloor   = "floor"        // fewer than Min fetches made
	FetchWorth   = "evoi"         // the next fetch's EVOI is at least its cost
	FetchCheap   = "below_cost"   // the next fetch's EVOI is below its cost: stop
	FetchCeiling = "ceiling"      // Max fetches made: stop
	FetchEnough  = "sufficient"   // the claim's sufficiency reached S_min: stop
	FetchNone    = "no_more_urls" // nothing left to fetch
)

// NextFetch decides whether a claim that has had n of its result pages
// fetched gets one more: EVOI_next = Value · H(belief) · decayⁿ · (1 −
// ½·min(1, S/S_min)), fetched while at least Cost, at least Min and at
// most Max fetches, and not once the claim is sufficient.
func NextFetch(n int, belief, sufficiency float64, w Weights, p FetchParams) (bool, float64, string) {
	ratio := 0.0
	if w.Min > 0 {
		ratio = min(1, max(0, sufficiency/w.Min))
	}
	evoi := p.Value * Entropy(belief) * math.Pow(p.Decay, float64(n)) * (1 - 0.5*ratio)
	switch {
	case n >= p.Max:
		return false, evoi, FetchCeiling
	case n < p.Min:
		return true, evoi, FetchFloor
	case sufficiency >= w.Min:
		return false, evoi, FetchEnough
	case evoi >= p.Cost:
		return true, evoi, FetchWorth
	}
	return false, evoi, FetchCheap
}
