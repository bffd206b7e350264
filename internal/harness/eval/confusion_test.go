package eval_test

import (
	"math"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

func TestConfusion(t *testing.T) {
	var c eval.Confusion
	if c.Accuracy() != 0 || c.MacroF1() != 0 || c.F1(models.Supports) != 0 {
		t.Fatal("zero Confusion should report zeros")
	}
	// gold, pred
	data := [][2]string{
		{models.Supports, models.Supports}, {models.Supports, models.Supports}, {models.Supports, models.Neutral},
		{models.Refutes, models.Refutes}, {models.Refutes, models.Neutral},
		{models.Neutral, models.Neutral}, {models.Neutral, models.Supports}, {models.Neutral, models.Neutral},
	}
	for _, d := range data {
		c.Add(d[0], d[1])
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("Accuracy", c.Accuracy(), 5.0/8)
	// supports: P 2/3 R 2/3; refutes: P 1 R 1/2; neutral: P 2/4 R 2/3.
	near("F1 supports", c.F1(models.Supports), 2.0/3)
	near("F1 refutes", c.F1(models.Refutes), 2.0/3)
	near("F1 neutral", c.F1(models.Neutral), 2*0.5*(2.0/3)/(0.5+2.0/3))
	near("MacroF1", c.MacroF1(), (2.0/3+2.0/3+2*0.5*(2.0/3)/(0.5+2.0/3))/3)
	near("MajorityRate", c.MajorityRate(), 3.0/8)
	if c.Total() != 8 || c.Count(models.Neutral, models.Supports) != 1 {
		t.Errorf("Total %d Count %d", c.Total(), c.Count(models.Neutral, models.Supports))
	}
	if got := c.Labels(); strings.Join(got, ",") != "supports,refutes,neutral" {
		t.Errorf("Labels = %v", got)
	}
	s := c.String()
	for _, want := range []string{"gold\\pred", "supports", "accuracy=0.625", "macroF1="} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	// A label only ever predicted adds a column but no class to MacroF1.
	c.Add(models.Supports, "other")
	if got := c.Labels(); got[len(got)-1] != "other" {
		t.Errorf("Labels = %v", got)
	}
	if f := c.F1("other"); f != 0 {
		t.Errorf("F1(other) = %v", f)
	}
}
