package evidence

import (
	"math"
	"testing"
)

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func edges(rel string, conf float64, n int) []Edge {
	out := make([]Edge, n)
	for i := range out {
		out[i] = Edge{Relation: rel, Confidence: conf}
	}
	return out
}

func tallyOf(es ...[]Edge) Tally {
	var t Tally
	for _, group := range es {
		for _, e := range group {
			t.Add(e)
		}
	}
	return t
}

// The reference rows of ARCHITECTURE.md §5.1, exactly.
func TestPosteriorReferenceRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                      string
		edges                     [][]Edge
		conf, uncert, controversy float64
		verdict                   string
	}{
		{"no evidence", nil, 0.5, 0.289, 0, VerdictUnverified},
		{"one support 0.9", [][]Edge{edges("supports", 0.9, 1)}, 0.655, 0.241, 0, VerdictSupported},
		{"three supports 0.9", [][]Edge{edges("supports", 0.9, 3)}, 0.787, 0.171, 0, VerdictWellSupported},
		{"three supports one refute", [][]Edge{edges("supports", 0.9, 3), edges("refutes", 0.9, 1)}, 0.661, 0.184, 0.25, VerdictSupported},
		{"five and five", [][]Edge{edges("supports", 0.9, 5), edges("refutes", 0.9, 5)}, 0.5, 0.144, 0.5, VerdictContested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Compute(tallyOf(tt.edges...))
			if got := round3(p.Confidence); got != tt.conf {
				t.Errorf("confidence = %v, want %v", got, tt.conf)
			}
			if got := round3(p.Uncertainty); got != tt.uncert {
				t.Errorf("uncertainty = %v, want %v", got, tt.uncert)
			}
			if got := round3(p.Controversy); got != tt.controversy {
				t.Errorf("controversy = %v, want %v", got, tt.controversy)
			}
			if p.Verdict != tt.verdict {
				t.Errorf("verdict = %q, want %q", p.Verdict, tt.verdict)
			}
		})
	}
}

func TestPosteriorIgnoresNonEvidence(t *testing.T) {
	t.Parallel()
	base := Compute(tallyOf(edges("supports", 0.9, 1)))
	tests := []struct {
		name  string
		extra Edge
	}{
		{"neutral", Edge{Relation: "neutral", Confidence: 0.99}},
		{"origin", Edge{Relation: "origin", Confidence: math.NaN()}},
		{"cites", Edge{Relation: "cites", Confidence: 1}},
		{"null supports", Edge{Relation: "supports", Confidence: math.NaN()}},
		{"zero refutes", Edge{Relation: "refutes", Confidence: 0}},
		{"negative supports", Edge{Relation: "supports", Confidence: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tl := tallyOf(edges("supports", 0.9, 1), []Edge{tt.extra})
			p := Compute(tl)
			if p.Alpha != base.Alpha || p.Beta != base.Beta || p.Confidence != base.Confidence {
				t.Errorf("posterior changed: %+v vs %+v", p, base)
			}
		})
	}
}

func TestVerdictBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		conf, contr float64
		want        string
	}{
		{0.9, 0.31, VerdictContested},
		{0.9, 0.3, VerdictWellSupported},
		{0.75, 0, VerdictWellSupported},
		{0.7499, 0, VerdictSupported},
		{0.6, 0, VerdictSupported},
		{0.5999, 0, VerdictUnverified},
		{0.4001, 0, VerdictUnverified},
		{0.4, 0, VerdictLikelyFalse},
		{0.1, 0, VerdictLikelyFalse},
	}
	for _, tt := range tests {
		if got := Verdict(tt.conf, tt.contr); got != tt.want {
			t.Errorf("Verdict(%v, %v) = %q, want %q", tt.conf, tt.contr, got, tt.want)
		}
	}
}

// The verdict rule is symmetric: the same evidence for a claim and against
// it gives mirrored verdicts (issue: one support of 0.79 made a claim
// supported while one refute of 0.85 left the opposite claim unverified).
func TestVerdictsMirrorAroundOneHalf(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{0.1, 0.5, 0.6, 0.79, 0.85, 1} {
		for n := 1; n <= 4; n++ {
			sup := Compute(tallyOf(edges("supports", c, n)))
			ref := Compute(tallyOf(edges("refutes", c, n)))
			if math.Abs(sup.Confidence+ref.Confidence-1) > 1e-12 {
				t.Fatalf("%d × %.2f: confidences %.4f and %.4f do not mirror", n, c, sup.Confidence, ref.Confidence)
			}
			supported := sup.Verdict == VerdictSupported || sup.Verdict == VerdictWellSupported
			if supported != (ref.Verdict == VerdictLikelyFalse) {
				t.Errorf("%d × %.2f: supports give %s, refutes give %s", n, c, sup.Verdict, ref.Verdict)
			}
		}
	}
}

func BenchmarkCompute(b *testing.B) {
	tl := tallyOf(edges("supports", 0.9, 3), edges("refutes", 0.8, 2))
	for b.Loop() {
		_ = Compute(tl)
	}
}
