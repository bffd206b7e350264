package extracteval

import (
	"math"
	"testing"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	truth := "one two three four five six"
	for _, tc := range []struct {
		name      string
		pred      string
		prec, rec float64
	}{
		{"identical, punctuation and spacing ignored", "one, two three\n\nfour five (six)", 1, 1},
		// truth shingles: 1234 2345 3456; pred: 1234 2345 3456 4567
		{"one extra word", truth + " seven", 3.0 / 4, 1},
		// pred: 1234 2345
		{"last word missing", "one two three four five", 1, 2.0 / 3},
		{"nothing predicted", "", 0, 0},
		{"unrelated", "alpha beta gamma delta", 0, 0},
		// a repeated shingle counts as often as it occurs
		{"duplicated text", truth + " " + truth, 3.0 / 9, 1},
		// case matters, as in the benchmark's tokenizer
		{"case differs", "One Two Three Four Five Six", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := Compare(truth, tc.pred)
			if !near(m.Precision(), tc.prec) || !near(m.Recall(), tc.rec) {
				t.Errorf("precision %.3f recall %.3f, want %.3f %.3f", m.Precision(), m.Recall(), tc.prec, tc.rec)
			}
			if s := m.TP + m.FP + m.FN; !near(s, 1) {
				t.Errorf("TP+FP+FN = %.3f, want 1 (normalised)", s)
			}
		})
	}
}

func TestCompareShortAndEmptyTexts(t *testing.T) {
	t.Parallel()
	// Fewer tokens than a shingle: the whole text is one shingle.
	if m := Compare("two words", "two words"); m.F1() != 1 {
		t.Errorf("short identical texts: F1 %.3f, want 1", m.F1())
	}
	// Both empty: nothing to find and nothing found is perfect.
	if m := Compare("", ""); m.Precision() != 1 || m.Recall() != 1 {
		t.Errorf("empty texts: %+v", m)
	}
	// Non-Latin letters and digits are tokens; combining marks split
	// nothing here because the sample has none.
	if m := Compare("Ελληνικά κείμενα 2024 έτος", "Ελληνικά κείμενα 2024 έτος"); m.F1() != 1 {
		t.Errorf("Greek text: F1 %.3f", m.F1())
	}
}

func TestSummariseAveragesPagesThenCombines(t *testing.T) {
	t.Parallel()
	perfect := Compare("a b c d e", "a b c d e")
	empty := Compare("a b c d e", "") // predicted nothing: no precision term
	extra := Compare("", "x y z w")   // nothing true: no recall term
	s := Summarise([]Match{perfect, empty, extra})
	// precision: mean over perfect (1) and extra (0) = 0.5;
	// recall: mean over perfect (1) and empty (0) = 0.5.
	if s.Pages != 3 || !near(s.Precision, 0.5) || !near(s.Recall, 0.5) || !near(s.F1, 0.5) {
		t.Errorf("Summarise = %+v, want 3 pages, 0.5/0.5/0.5", s)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
