package eval

import (
	"math"
	"testing"
)

func TestWilsonInterval(t *testing.T) {
	t.Parallel()
	// 50 of 100: the textbook Wilson interval is 0.404–0.596.
	if got := wilson(50, 100); math.Abs(got.Low-0.4038) > 5e-4 || math.Abs(got.High-0.5962) > 5e-4 {
		t.Errorf("wilson(50, 100) = %v, want 0.404–0.596", got)
	}
	// all right still leaves room below; none right room above
	if got := wilson(20, 20); got.High != 1 || got.Low > 0.85 {
		t.Errorf("wilson(20, 20) = %v", got)
	}
	if got := wilson(0, 20); got.Low != 0 || got.High < 0.15 {
		t.Errorf("wilson(0, 20) = %v", got)
	}
	if got := wilson(0, 0); got != (Interval{}) {
		t.Errorf("wilson(0, 0) = %v, want zero", got)
	}
}

func TestMatrixMacroF1IsConfusionMacroF1(t *testing.T) {
	t.Parallel()
	labels := []string{"a", "b", "c"}
	m := [][]int{{5, 2, 1}, {0, 0, 0}, {3, 1, 4}} // b never gold: no class
	var c Confusion
	for i, row := range m {
		for j, k := range row {
			for range k {
				c.Add(labels[i], labels[j])
			}
		}
	}
	if got, want := matrixMacroF1(m), c.MacroF1(); math.Abs(got-want) > 1e-12 {
		t.Errorf("matrixMacroF1 %v, Confusion.MacroF1 %v", got, want)
	}
}

func TestBootstrapMacroF1(t *testing.T) {
	t.Parallel()
	m := [][]int{{40, 10, 10}, {10, 30, 20}, {5, 15, 60}}
	got := bootstrapMacroF1(m)
	if f := matrixMacroF1(m); !(got.Low < f && f < got.High) {
		t.Errorf("interval %v does not hold the macro-F1 %.3f", got, f)
	}
	if again := bootstrapMacroF1(m); again != got {
		t.Errorf("second run %v, first %v: want the same", again, got)
	}
	big := [][]int{{160, 40, 40}, {40, 120, 80}, {20, 60, 240}}
	if wide, narrow := got.High-got.Low, bootstrapMacroF1(big).High-bootstrapMacroF1(big).Low; narrow > 0.7*wide {
		t.Errorf("four times the pairs: width %.3f, want well under %.3f", narrow, wide)
	}
}

func TestScoreGivesRecallIntervals(t *testing.T) {
	t.Parallel()
	var c Confusion
	for range 14 {
		c.Add("SUPPORTS", "SUPPORTS")
	}
	for range 155 {
		c.Add("SUPPORTS", "NOT_ENOUGH_INFO")
	}
	c.Add("NOT_ENOUGH_INFO", "NOT_ENOUGH_INFO")
	s, err := Score(&c, []string{"SUPPORTS", "NOT_ENOUGH_INFO"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Classes[0].RecallInterval, wilson(14, 169); got != want {
		t.Errorf("SUPPORTS recall interval %v, want %v", got, want)
	}
	if got := s.Classes[0].RecallInterval; !(got.Low < s.Classes[0].Recall && s.Classes[0].Recall < got.High) {
		t.Errorf("recall %.3f outside its interval %v", s.Classes[0].Recall, got)
	}
}
