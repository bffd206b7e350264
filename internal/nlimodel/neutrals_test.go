package nlimodel

import (
	"slices"
	"strings"
	"testing"
)

func TestTokensKeepNumbersWhole(t *testing.T) {
	t.Parallel()
	got := tokens("Temperatures rose 0.2 degrees; 1,500 people, three dogs. End.")
	want := []string{"temperature", "rose", "0.2", "degree", "1500", "people", "3", "dog", "end"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}

func TestSubstitutionsNameTheReplacedWord(t *testing.T) {
	t.Parallel()
	p, h := Analyse("The baby is asleep in her crib."), Analyse("The baby is awake.")
	f := &featureSet{mask: 1<<20 - 1}
	substitutions(f, p, h)
	want := uint32(mix(kSubst, hashString("asleep"), hashString("awake")) & f.mask)
	if !slices.Equal(f.idx, []uint32{want}) {
		t.Errorf("substitutions %v, want only (asleep, awake) %d", f.idx, want)
	}
	f.idx = nil
	substitutions(f, p, Analyse("The baby is asleep."))
	if len(f.idx) != 0 {
		t.Errorf("a hypothesis made of the premise's words gave substitutions %v", f.idx)
	}
}

func TestAntonymCueFiresOnAnInflectedPair(t *testing.T) {
	t.Parallel()
	cue := uint32(mix(kAntonym, 0, 0) & (1<<20 - 1))
	if f := Features("Prices increased in 2008.", "Prices decreased in 2008.", 1<<20); !slices.Contains(f, cue) {
		t.Error("increased / decreased: no antonym cue")
	}
	if f := Features("Prices increased in 2008.", "Prices increased a lot.", 1<<20); slices.Contains(f, cue) {
		t.Error("increased / increased: an antonym cue")
	}
}

func TestSubjectOf(t *testing.T) {
	t.Parallel()
	for claim, want := range map[string]string{
		"Bank of America was founded in 1904.":       "Bank of America",
		"The Beatles and the Rolling Stones toured.": "The Beatles and the Rolling Stones",
		"Paris is a city.":                           "Paris",
		"a film of the year":                         "",
		"Winner of the award.":                       "Winner",
	} {
		if got := subjectOf(claim); got != want {
			t.Errorf("subjectOf(%q) = %q, want %q", claim, got, want)
		}
	}
}

func TestSameSubjectNeutrals(t *testing.T) {
	t.Parallel()
	gold := func(label int, premise, claim string) TrainingExample {
		return TrainingExample{Example: Example{premise, claim, label}, Meta: GoldEvidence}
	}
	ex := []TrainingExample{
		gold(0, "Paris is the capital of France.", "Paris is in France."),
		gold(2, "Paris has two million inhabitants.", "Paris is not a city."),
		gold(0, "Rome is the capital of Italy.", "Rome is in Italy."),                                           // alone with its subject
		{Example: Example{"Paris hosted the Olympics.", "Paris is big.", 1}, Meta: "nei_same_subject_evidence"}, // not gold
		gold(0, "Paris is the capital of France. It is large.", "Paris is large."),                              // contains the first premise
	}
	got := SameSubjectNeutrals(ex, 1)
	want := []Example{
		{"Paris has two million inhabitants.", "Paris is in France.", 1},
		{"Paris is the capital of France. It is large.", "Paris is not a city.", 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("SameSubjectNeutrals = %v, want %v", got, want)
	}
	if half := SameSubjectNeutrals(ex, 2); !slices.Equal(half, want[1:]) {
		t.Errorf("every 2nd: %v, want %v", half, want[1:])
	}
	if none := SameSubjectNeutrals(ex, 0); none != nil {
		t.Errorf("every 0: %v", none)
	}
}

func TestInterleaveSpreadsAndKeepsOrder(t *testing.T) {
	t.Parallel()
	ex := func(s ...string) []Example {
		out := make([]Example, len(s))
		for i, p := range s {
			out[i] = Example{Premise: p}
		}
		return out
	}
	got := Interleave(ex("a", "b", "c", "d", "e", "f"), ex("X", "Y"))
	if want := ex("a", "b", "c", "d", "X", "e", "f", "Y"); !slices.Equal(got, want) {
		t.Errorf("Interleave = %v, want %v", got, want)
	}
	if got := Interleave(ex("a"), nil); !slices.Equal(got, ex("a")) {
		t.Errorf("Interleave with nothing to add = %v", got)
	}
}

func TestNegationCueIsConjoinedWithAlignment(t *testing.T) {
	t.Parallel()
	const dim = 1 << 20
	conj := func(aligned uint64) uint32 { return uint32(mix(kNegation+kAligned, 0, 1<<3|aligned) & (dim - 1)) }
	// every content word of the hypothesis but its negation is in the premise: bucket 4
	if f := Features("The dog plays in the park.", "The dog is not playing in the park.", dim); !slices.Contains(f, conj(4)) {
		t.Error("a fully aligned negated hypothesis lacks the negation cue at alignment 4")
	}
	// none is: bucket 1
	f := Features("The dog runs in the park.", "A cat does not sleep.", dim)
	if !slices.Contains(f, conj(1)) || slices.Contains(f, conj(4)) {
		t.Error("an unaligned negated hypothesis is not at alignment 1 alone")
	}
	if !slices.Contains(f, uint32(mix(kNegation, 0, 1)&(dim-1))) {
		t.Error("the plain negation cue is missing")
	}
}

func TestInPassages(t *testing.T) {
	t.Parallel()
	ex := []TrainingExample{
		{Example: Example{"Paris is the capital of France.", "Paris is in France.", 0}, Meta: GoldEvidence},
		{Example: Example{"Paris has 2.1 million inhabitants.", "Paris is a village.", 2}, Meta: GoldEvidence},
		{Example: Example{"Paris hosted the 1924 Olympics.", "Paris hosted the Olympics twice.", 1}, Meta: "nei_same_subject_evidence"},
		{Example: Example{"Rome is the capital of Italy.", "Rome is in Italy.", 0}, Meta: GoldEvidence}, // no other Rome premise
		{Example: Example{"A man plays.", "Paris is nice.", 0}, Meta: "travel"},                         // MultiNLI, not FEVER
	}
	sentences, passages := InPassages(ex)
	if len(sentences) != 3 || len(passages) != 3 {
		t.Fatalf("%d sentences, %d passages; want the 3 Paris pairs", len(sentences), len(passages))
	}
	for i, p := range passages {
		s := sentences[i]
		if p.Hypothesis != s.Hypothesis || p.Label != s.Label || p.Hypothesis != ex[i].Hypothesis {
			t.Errorf("passage %d: %+v, sentence %+v: want the same claim and label as pair %d", i, p, s, i)
		}
		mid := " " + ex[i].Premise + " "
		if !strings.Contains(p.Premise, mid) || strings.HasPrefix(p.Premise, ex[i].Premise) {
			t.Errorf("passage %d %q: want the evidence between two other premises", i, p.Premise)
		}
		if strings.Contains(p.Premise, "Rome") || strings.Contains(p.Premise, "man plays") {
			t.Errorf("passage %d %q: a premise from another subject or another corpus", i, p.Premise)
		}
	}
}
