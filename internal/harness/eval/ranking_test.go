package eval

import (
	"context"
	"math"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

func TestROCAUC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pos, neg []float64
		want     float64
	}{
		{"every positive above", []float64{0.9, 0.8}, []float64{0.1, 0.2, 0.3}, 1},
		{"every positive below", []float64{0.1}, []float64{0.5, 0.6}, 0},
		{"all tied", []float64{0.4, 0.4}, []float64{0.4, 0.4, 0.4}, 0.5},
		// 0.8 beats all three (3); 0.4 beats 0.2 (1) and ties 0.4 (½): 4.5 of 6.
		{"mixed with a tie", []float64{0.8, 0.4}, []float64{0.6, 0.2, 0.4}, 0.75},
	}
	for _, tc := range tests {
		a := rocAUC(tc.pos, tc.neg)
		if math.Abs(a.Value-tc.want) > 1e-12 {
			t.Errorf("%s: AUC %v, want %v", tc.name, a.Value, tc.want)
		}
		if a.Interval.Low > a.Value || a.Interval.High < a.Value || a.Interval.Low < 0 || a.Interval.High > 1 {
			t.Errorf("%s: interval %v does not hold %v within [0,1]", tc.name, a.Interval, a.Value)
		}
		if a.Positives != len(tc.pos) || a.Negatives != len(tc.neg) {
			t.Errorf("%s: counts %d/%d", tc.name, a.Positives, a.Negatives)
		}
	}

	// The same separation on ten times the pairs is known more closely.
	small := rocAUC([]float64{0.8, 0.4, 0.3}, []float64{0.6, 0.2, 0.1})
	var pos, neg []float64
	for range 10 {
		pos = append(pos, 0.8, 0.4, 0.3)
		neg = append(neg, 0.6, 0.2, 0.1)
	}
	large := rocAUC(pos, neg)
	if math.Abs(small.Value-large.Value) > 1e-12 {
		t.Fatalf("AUC %v on the pairs, %v on ten copies", small.Value, large.Value)
	}
	if w, W := large.Interval.High-large.Interval.Low, small.Interval.High-small.Interval.Low; !(w < W) {
		t.Errorf("interval width %v on 60 pairs, %v on 6", w, W)
	}
}

func TestSeparation(t *testing.T) {
	t.Parallel()
	judge := func(sup, ref float64) models.Judgement {
		return models.Judgement{Label: models.Neutral, Confidence: 1 - sup - ref,
			Distribution: models.Distribution{Supports: sup, Refutes: ref, Neutral: 1 - sup - ref}}
	}
	var gold []NLIExample
	for _, l := range []string{models.Supports, models.Supports, models.Refutes, models.Neutral, models.Neutral} {
		gold = append(gold, NLIExample{Gold: l})
	}
	js := []models.Judgement{judge(0.6, 0.1), judge(0.2, 0.1), judge(0.1, 0.3), judge(0.3, 0.2), judge(0.1, 0.4)}
	s := separation(gold, js)
	if s == nil {
		t.Fatal("no separation from judgements with distributions")
	}
	// supports: 0.6 beats 0.3 and 0.1, 0.2 beats 0.1: 3 of 4. refutes: 0.3 beats 0.2 only: 1 of 2.
	if s.Supports.Value != 0.75 || s.Refutes.Value != 0.5 {
		t.Errorf("supports %v, refutes %v; want 0.75, 0.5", s.Supports, s.Refutes)
	}

	topOnly := append([]models.Judgement(nil), js...)
	topOnly[2] = models.Judgement{Label: models.Refutes, Confidence: 0.8}
	if s := separation(gold, topOnly); s != nil {
		t.Errorf("a judgement without its distribution gave %+v", s)
	}
	if s := separation(gold[2:], js[2:]); s != nil {
		t.Errorf("no gold supports pair gave %+v", s)
	}
}

func TestRelatedness(t *testing.T) {
	t.Parallel()
	// Supports and refutes pairs restate their claim word for word; the
	// neutral ones are about something else: relatedness ranks both
	// relations above every neutral pair, whatever their direction.
	examples := []NLIExample{
		{Gold: models.Supports, Premise: "Sea levels rose by 20 cm in the last century.", Hypothesis: "Sea levels rose by 20 cm in the last century."},
		{Gold: models.Refutes, Premise: "Arctic sea ice is not shrinking.", Hypothesis: "Arctic sea ice is not shrinking."},
		{Gold: models.Neutral, Premise: "The cathedral was finished in 1311.", Hypothesis: "Glaciers are retreating worldwide."},
		{Gold: models.Neutral, Premise: "Bees pollinate many crops.", Hypothesis: "Carbon dioxide traps heat."},
	}
	s, err := relatedness(context.Background(), builtin.NewHashEmbedder(64), 3, examples)
	if err != nil {
		t.Fatal(err)
	}
	if s == nil || s.Supports.Value != 1 || s.Refutes.Value != 1 || s.Supports.Negatives != 2 {
		t.Fatalf("relatedness %+v, want every decisive pair above both neutral ones", s)
	}
}
