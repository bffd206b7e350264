package nlimodel

import (
	"slices"
	"testing"
)

// toy is a task the features can learn exactly: a hypothesis with "not" is
// a contradiction, one made of the premise's words an entailment, anything
// else neutral.
func toy() []Example {
	premises := []string{"A man plays a guitar on stage.", "Two dogs run through the snow.", "A woman reads a book in the park."}
	var ex []Example
	for _, p := range premises {
		w := tokens(p)
		ex = append(ex,
			Example{p, w[1] + " " + w[2], 0},
			Example{p, "A child sleeps at home.", 1},
			Example{p, "The " + w[1] + " does not " + w[2] + ".", 2},
		)
	}
	return ex
}

func TestTrainIsDeterministic(t *testing.T) {
	t.Parallel()
	o := TrainOptions{Dim: 1 << 12, Epochs: 5, Rate: 0.1}
	a, b := Train(toy(), o), Train(toy(), o)
	if !slices.Equal(a.W, b.W) {
		t.Fatal("two trainings on the same examples differ")
	}
	nonzero := slices.IndexFunc(a.W, func(w float32) bool { return w != 0 })
	if nonzero < 0 {
		t.Fatal("training left every weight at zero")
	}
}

func TestTrainLearnsTheToyTask(t *testing.T) {
	t.Parallel()
	m := Train(toy(), TrainOptions{Dim: 1 << 12, Epochs: 20, Rate: 0.2})
	for _, e := range toy() {
		s := m.Scores(e.Premise, e.Hypothesis)
		if best, _ := Top(s); best != e.Label {
			t.Errorf("(%q, %q): %s %.2f, want %s", e.Premise, e.Hypothesis, Labels[best], s, Labels[e.Label])
		}
		if sum := s[0] + s[1] + s[2]; sum < 0.999 || sum > 1.001 {
			t.Errorf("probabilities sum to %.4f", sum)
		}
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"dogs": "dog", "puppies": "puppy", "boxes": "box", "churches": "church", "glass": "glass",
		"bus": "bus", "this": "this", "playing": "play", "sing": "sing", "played": "play", "red": "red",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestFeaturesStayInRange(t *testing.T) {
	t.Parallel()
	const dim = 1 << 10
	f := Features("Two men are not playing 3 games.", "Nobody plays 4 games!", dim)
	if len(f) < 10 {
		t.Fatalf("%d features, want the pair's words, cues and buckets", len(f))
	}
	for _, i := range f {
		if i >= dim {
			t.Fatalf("feature %d outside [0, %d)", i, dim)
		}
	}
	if g := Features("Two men are not playing 3 games.", "Nobody plays 4 games!", dim); !slices.Equal(f, g) {
		t.Error("features of the same pair differ")
	}
}
