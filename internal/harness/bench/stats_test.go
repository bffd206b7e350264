package bench

import (
	"math"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.95, 10.5},
		{[]float64{7}, 0.99, 7},
	}
	for _, tt := range tests {
		if got := quantile(tt.xs, tt.q); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing should be NaN")
	}
	if got := rate(10, 2*time.Second); got != 5 {
		t.Errorf("rate = %v, want 5", got)
	}
	if got := rate(10, 0); got != 0 {
		t.Errorf("rate over no time = %v, want 0", got)
	}
}

// TestComparisonOnlyLikeWithLike: a row is compared with River's figure of
// the same unit, and comparing claims/s with jobs/s is refused.
func TestComparisonOnlyLikeWithLike(t *testing.T) {
	t.Parallel()
	if got, want := comparison("jobs worked", 500, "jobs/s", "no-op", 2000, "jobs/s"), "no-op 2000 jobs/s: ×0.25"; got != want {
		t.Errorf("comparison = %q, want %q", got, want)
	}
	if got, want := comparison("CPU", 0.4, "CPU s", "no-op", 0.08, "CPU s"), "no-op 0.08 CPU s: ×5.00"; got != want {
		t.Errorf("comparison = %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("claims/s compared with jobs/s without a panic")
		}
	}()
	comparison("claims verified", 447, "claims/s", "no-op", 1945, "jobs/s")
}
