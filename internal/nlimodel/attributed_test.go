package nlimodel

import (
	"slices"
	"testing"
)

func TestTokenizeFindsSentences(t *testing.T) {
	t.Parallel()
	toks, starts := tokenize("Rates rose 0.2 points. Why? Nobody knows!", true)
	if want := []string{"rate", "rose", "0.2", "point", "why", "nobody", "know"}; !slices.Equal(toks, want) {
		t.Fatalf("tokens %q, want %q", toks, want)
	}
	if want := []int32{4, 5}; !slices.Equal(starts, want) {
		t.Errorf("sentence starts %v, want %v (a number's point ends none)", starts, want)
	}
	if _, starts := tokenize("Rates rose. Then fell.", false); starts != nil {
		t.Errorf("sentence starts %v when not asked for", starts)
	}
}

func TestAttributed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		premise, hypothesis string
		want                bool
	}{
		// the claim's words stand in a sentence that keeps its distance
		{"In 2018, Smith asserted on television that the glaciers are growing again.", "The glaciers are growing again.", true},
		{"Critics claim that volcanoes melt the ice sheet.", "Volcanoes melt the ice sheet.", true},
		{"The company denied that its plant polluted the river.", "The plant polluted the river.", true},
		{"He argues the warming has stopped since 1998.", "The warming has not stopped since 1998.", true},
		// stated, not reported
		{"The glaciers are growing again, a survey found.", "The glaciers are growing again.", false},
		{"Volcanoes melt the ice sheet from below.", "Volcanoes melt the ice sheet.", false},
		// the hypothesis is itself about the report
		{"Critics claim that volcanoes melt the ice sheet.", "Critics say volcanoes melt the ice sheet.", false},
		{"Smith asserted that the glaciers are growing.", "Smith claimed the glaciers are growing.", false},
		// another sentence states it: the best-covering one has no distancing word
		{"Smith claimed otherwise. The glaciers are growing again, the survey shows.", "The glaciers are growing again.", false},
		// as many words in a sentence that states as in one that reports: not held back
		{"Smith claimed the glaciers grow. The glaciers grow.", "The glaciers grow.", false},
		// no word of the hypothesis in the premise
		{"Smith claimed many things.", "Glaciers grow.", false},
	}
	for _, tc := range tests {
		if got := Attributed(Analyse(tc.premise), Analyse(tc.hypothesis)); got != tc.want {
			t.Errorf("Attributed(%q, %q) = %v, want %v", tc.premise, tc.hypothesis, got, tc.want)
		}
	}
}
