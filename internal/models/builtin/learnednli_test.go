package builtin

import (
	"context"
	"math"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// The committed weights' behaviour on hand-written pairs of the kinds the
// training data teaches; a retraining that loses one fails here.
func TestLearnedNLIHandWrittenPairs(t *testing.T) {
	t.Parallel()
	n, err := NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		premise, hypothesis, want string
	}{
		{"A man is playing a guitar on stage.", "A man is playing a guitar.", models.Supports},
		{"A man is playing a guitar on stage.", "A man is not playing a guitar.", models.Refutes},
		{"A man is playing a guitar on stage.", "Nobody is playing an instrument.", models.Refutes},
		{"Two dogs are running through the snow.", "The dogs are sleeping.", models.Refutes},
		{"A woman is reading a book in the park.", "A woman is reading her favourite novel.", models.Neutral},
	}
	pairs := make([]models.Pair, len(tests))
	for i, tc := range tests {
		pairs[i] = models.Pair{Premise: tc.premise, Hypothesis: tc.hypothesis}
	}
	got, err := n.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if got[i].Label != tc.want || got[i].Confidence <= 1.0/3 || got[i].Confidence > 1 {
			t.Errorf("(%q, %q) = %s %.2f, want %s", tc.premise, tc.hypothesis, got[i].Label, got[i].Confidence, tc.want)
		}
		d := got[i].Distribution
		top := map[string]float64{models.Supports: d.Supports, models.Refutes: d.Refutes, models.Neutral: d.Neutral}[got[i].Label]
		if math.Abs(d.Supports+d.Refutes+d.Neutral-1) > 1e-9 || top != got[i].Confidence || max(d.Supports, d.Refutes, d.Neutral) != top {
			t.Errorf("(%q, %q): distribution %+v, label %s at %v", tc.premise, tc.hypothesis, d, got[i].Label, got[i].Confidence)
		}
	}
	if n.Model() != LearnedNLIModel {
		t.Errorf("model id %q", n.Model())
	}
}

func TestLearnedNLIStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	n, err := NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.Judge(ctx, []models.Pair{{Premise: "a", Hypothesis: "b"}}); err == nil {
		t.Error("a cancelled call judged")
	}
}

// TestLearnedNLIKeepsPremisesAcrossCalls: a premise judged in several
// calls is analysed once, and a judgement is the same whether its premise
// came from the cache or not.
func TestLearnedNLIKeepsPremisesAcrossCalls(t *testing.T) {
	t.Parallel()
	n, err := NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	premise := "Two women are walking their dogs in the park."
	var first []models.Judgement
	for i, h := range []string{"People are walking dogs.", "The women are asleep.", "People are walking dogs."} {
		got, err := n.Judge(t.Context(), []models.Pair{{Premise: premise, Hypothesis: h}, {Premise: "A man sleeps.", Hypothesis: h}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		}
		if i == 2 && (got[0] != first[0] || got[1] != first[1]) {
			t.Errorf("the same pairs judged with cached premises: %v, first %v", got, first)
		}
	}
	if n.premises.made != 2 {
		t.Errorf("%d premises analysed, want 2", n.premises.made)
	}
}

func TestLearnedNLIHoldsBackReportedSpeech(t *testing.T) {
	t.Parallel()
	n, err := NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	const claim = "The glaciers of Alaska are growing again."
	tests := []struct {
		premise  string
		holdBack bool
	}{
		{"In 2018, Smith asserted on television that the glaciers of Alaska are growing again.", true},
		{"The oil company denied that the glaciers of Alaska are growing again.", true},
		{"The glaciers of Alaska are growing again, a survey of 2018 found.", false},
	}
	pairs := make([]models.Pair, len(tests))
	for i, tc := range tests {
		pairs[i] = models.Pair{Premise: tc.premise, Hypothesis: claim}
	}
	got, err := n.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		j := got[i]
		if j.Label == models.Neutral {
			t.Errorf("%q: neutral: the pair no longer shows the hold-back", tc.premise)
		}
		if j.HoldBack != tc.holdBack {
			t.Errorf("%q: %s %.2f, held back %v, want %v", tc.premise, j.Label, j.Confidence, j.HoldBack, tc.holdBack)
		}
	}
	// A model that judges neutral holds nothing back.
	js, err := n.Judge(context.Background(), []models.Pair{{Premise: "Critics claim that the moon is made of cheese.", Hypothesis: claim}})
	if err != nil || js[0].Label != models.Neutral || js[0].HoldBack {
		t.Errorf("unrelated reported speech: %+v, %v", js, err)
	}
}
