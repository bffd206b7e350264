// Package evidence holds the pure math of the evidence graph: the Beta
// posterior of a claim and its verdict (ARCHITECTURE.md §5.1). It does no I/O.
package evidence

import "math"

// Verdicts of a claim.
const (
	VerdictWellSupported = "well_supported"
	VerdictSupported     = "supported"
	VerdictUnverified    = "unverified"
	VerdictLikelyFalse   = "likely_false"
	VerdictContested     = "contested"
)

// Thresholds of the verdict rule (ARCHITECTURE.md §5.1). likely_false
// mirrors supported around 0.5, so that evidence against a claim counts as
// much as the same evidence for it: one support of 0.79 makes a claim
// supported (0.641), one refute of 0.79 likely_false (0.359).
const (
	ContestedAbove     = 0.3
	WellSupportedFrom  = 0.75
	SupportedFrom      = 0.6
	LikelyFalseAtOrBel = 1 - SupportedFrom
)

// Tally is what the posterior is computed from: the sums of NLI edge
// confidences of supports and refutes edges, plus counts for reporting.
// Neutral edges, origin/cites edges and NULL or zero confidences never enter
// the sums. Domain trust never enters them either.
type Tally struct {
	SupportSum float64
	RefuteSum  float64
	Supporting int // supports edges with a positive confidence
	Refuting   int // refutes edges with a positive confidence
	Neutral    int
	// IndependentSources is the number of distinct sites (registrable
	// domains: a.evil.com and b.evil.com are one) behind the counted
	// supports/refutes edges.
	IndependentSources int
}

// Posterior is a claim's Beta(α, β) posterior and what is derived from it.
type Posterior struct {
	Alpha, Beta  float64
	Confidence   float64 // α/(α+β)
	Uncertainty  float64 // standard deviation of Beta(α, β)
	Controversy  float64 // min(α−1, β−1)/(α+β−2); 0 with no evidence
	Verdict      string
	Supporting   int
	Refuting     int
	Neutral      int
	Independent  int
	EvidenceSize int // supporting + refuting + neutral
}

// Edge is one NLI edge as seen by Add.
type Edge struct {
	Relation   string  // "supports" | "refutes" | anything else is ignored for the sums
	Confidence float64 // NaN stands for NULL
}

// Add counts one edge into the tally (page identity is tracked by the caller).
func (t *Tally) Add(e Edge) {
	c := e.Confidence
	valid := !math.IsNaN(c) && c > 0 && !math.IsInf(c, 0)
	switch e.Relation {
	case "supports":
		if valid {
			t.SupportSum += c
			t.Supporting++
		}
	case "refutes":
		if valid {
			t.RefuteSum += c
			t.Refuting++
		}
	case "neutral":
		t.Neutral++
	}
}

// Compute turns a tally into the posterior with a Beta(1,1) prior.
func Compute(t Tally) Posterior {
	a := 1 + clampSum(t.SupportSum)
	b := 1 + clampSum(t.RefuteSum)
	n := a + b
	p := Posterior{
		Alpha:       a,
		Beta:        b,
		Confidence:  a / n,
		Uncertainty: math.Sqrt(a * b / (n * n * (n + 1))),
		Supporting:  t.Supporting,
		Refuting:    t.Refuting,
		Neutral:     t.Neutral,
		Independent: t.IndependentSources,
	}
	p.EvidenceSize = t.Supporting + t.Refuting + t.Neutral
	if n-2 > 0 {
		p.Controversy = math.Min(a-1, b-1) / (n - 2)
	}
	p.Verdict = Verdict(p.Confidence, p.Controversy)
	return p
}

// Verdict applies the verdict rule of ARCHITECTURE.md §5.1.
func Verdict(confidence, controversy float64) string {
	switch {
	case controversy > ContestedAbove:
		return VerdictContested
	case confidence >= WellSupportedFrom:
		return VerdictWellSupported
	case confidence >= SupportedFrom:
		return VerdictSupported
	case confidence <= LikelyFalseAtOrBel:
		return VerdictLikelyFalse
	default:
		return VerdictUnverified
	}
}

func clampSum(s float64) float64 {
	if math.IsNaN(s) || s < 0 {
		return 0
	}
	return s
}
