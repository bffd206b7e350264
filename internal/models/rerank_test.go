package models_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

func TestScoresByIndex(t *testing.T) {
	t.Parallel()
	i := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	got, err := models.ScoresByIndex(3, []*int{i(2), i(0), i(1)}, []*float64{f(0.9), f(0.5), f(-1)})
	if err != nil || !slices.Equal(got, []float64{0.5, -1, 0.9}) {
		t.Fatalf("ScoresByIndex = %v, %v; want [0.5 -1 0.9]", got, err)
	}
	bad := []struct {
		name   string
		n      int
		idx    []*int
		scores []*float64
		want   string
	}{
		{"too few results", 2, []*int{i(0)}, []*float64{f(1)}, "1 results for 2 documents"},
		{"null index", 1, []*int{nil}, []*float64{f(1)}, "result 0 has no index"},
		{"index out of range", 1, []*int{i(1)}, []*float64{f(1)}, "index 1 outside [0,1)"},
		{"negative index", 1, []*int{i(-1)}, []*float64{f(1)}, "index -1 outside [0,1)"},
		{"duplicate index", 2, []*int{i(0), i(0)}, []*float64{f(1), f(2)}, "index 0 appears twice"},
		{"null score", 1, []*int{i(0)}, []*float64{nil}, "result 0 (index 0) has no score"},
		{"NaN score", 1, []*int{i(0)}, []*float64{f(math.NaN())}, "has score NaN"},
		{"infinite score", 1, []*int{i(0)}, []*float64{f(math.Inf(1))}, "has score +Inf"},
	}
	for _, tc := range bad {
		if _, err := models.ScoresByIndex(tc.n, tc.idx, tc.scores); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
