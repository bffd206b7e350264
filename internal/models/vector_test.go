package models_test

import (
	"context"
	"math"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// benchFragment is a typical ~300-character evidence fragment.
const benchFragment = "According to the latest assessment report, global mean surface temperature " +
	"increased by about 1.1 °C between 1850–1900 and 2011–2020, with larger increases over land " +
	"than over the ocean. Human activities, principally through emissions of greenhouse gases, " +
	"have unequivocally caused this warming, the report concludes."

const benchClaim = "Human greenhouse gas emissions did not cause global warming since 1850."

func TestCosine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"identical", []float32{0.6, 0.8}, []float32{0.6, 0.8}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, 0}, []float32{-1, 0}, -1},
		{"dot of unit vectors", []float32{1, 0}, []float32{0.6, 0.8}, 0.6},
		{"unnormalised", []float32{2, 0}, []float32{3, 3}, math.Sqrt2 / 2},
		{"length mismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"empty", nil, nil, 0},
		{"zero vector", []float32{0, 0}, []float32{1, 0}, 0},
		{"NaN", []float32{float32(math.NaN()), 1}, []float32{1, 1}, 0},
	}
	for _, tt := range tests {
		if got := models.Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s: Cosine = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTopK(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name   string
		scores []float64
		k      int
		min    float64
		want   []int
	}{
		{"basic", []float64{0.1, 0.9, 0.5, 0.7}, 2, 0, []int{1, 3}},
		{"all", []float64{0.1, 0.9, 0.5, 0.7}, 10, 0, []int{1, 3, 2, 0}},
		{"min filters", []float64{0.1, 0.9, 0.5, 0.7}, 10, 0.5, []int{1, 3, 2}},
		{"min inclusive", []float64{0.5, 0.4999}, 5, 0.5, []int{0}},
		{"ties by lower index", []float64{0.5, 0.8, 0.5, 0.8, 0.5}, 3, 0, []int{1, 3, 0}},
		{"ties at cut", []float64{0.3, 0.3, 0.3, 0.3}, 2, 0, []int{0, 1}},
		{"k zero", []float64{1, 2}, 0, 0, []int{}},
		{"k negative", []float64{1, 2}, -1, 0, []int{}},
		{"empty", nil, 3, 0, []int{}},
		{"none pass", []float64{0.1, 0.2}, 3, 0.9, []int{}},
		{"NaN skipped", []float64{nan, 0.2, nan, 0.4}, 3, -1, []int{3, 1}},
		{"negative scores", []float64{-0.5, -0.1, -0.9}, 2, math.Inf(-1), []int{1, 0}},
	}
	for _, tt := range tests {
		got := models.TopK(tt.scores, tt.k, tt.min)
		if len(got) != len(tt.want) {
			t.Errorf("%s: TopK = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: TopK = %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

// TestTopKMatchesSort compares TopK with a full stable sort on
// pseudo-random scores with many ties.
func TestTopKMatchesSort(t *testing.T) {
	t.Parallel()
	x := uint64(42)
	next := func() float64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x%50) / 50
	}
	for trial := 0; trial < 50; trial++ {
		n := trial * 7
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = next()
		}
		for _, k := range []int{1, 5, 30, n + 1} {
			got := models.TopK(scores, k, 0.3)
			want := refTopK(scores, k, 0.3)
			if len(got) != len(want) {
				t.Fatalf("n=%d k=%d: got %v want %v", n, k, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("n=%d k=%d: got %v want %v", n, k, got, want)
				}
			}
		}
	}
}

func refTopK(scores []float64, k int, min float64) []int {
	var idx []int
	for i, s := range scores {
		if s >= min {
			idx = append(idx, i)
		}
	}
	// insertion sort: score desc, index asc (stable by construction)
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && scores[idx[j]] > scores[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	if len(idx) > k {
		idx = idx[:k]
	}
	return idx
}

func BenchmarkCosine(b *testing.B) {
	e := builtin.NewHashEmbedder(builtin.HashEmbedderDim)
	v, _ := e.Embed(context.Background(), []string{benchFragment, benchClaim})
	b.ReportAllocs()
	for b.Loop() {
		models.Cosine(v[0], v[1])
	}
}

func BenchmarkTopK(b *testing.B) {
	// 10 000 candidate scores, keep the top 30 above 0.06 (ARCHITECTURE.md §5.2 shape).
	scores := make([]float64, 10000)
	x := uint64(1)
	for i := range scores {
		x = x*6364136223846793005 + 1442695040888963407
		scores[i] = float64(x>>11) / float64(1<<53)
	}
	b.ReportAllocs()
	for b.Loop() {
		models.TopK(scores, 30, builtin.HashEmbedderMinSimilarity)
	}
}

// TestCosineQuantized: the int8 copy of an embedding gives nearly the
// cosine of the original, whatever its scale, and nothing for a vector
// with no usable component.
func TestCosineQuantized(t *testing.T) {
	t.Parallel()
	e, err := builtin.NewHybridEmbedder(0)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{benchFragment, "Global warming is driving polar bears toward extinction.",
		"Sea ice in the Arctic is melting.", "The violinist performed a sonata.", "2019 1.5 CO2"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for _, a := range vecs {
		for _, b := range vecs {
			q, norm := models.Quantize(nil, b)
			worst = max(worst, math.Abs(models.CosineQuantized(a, q, norm)-models.Cosine(a, b)))
			scaled := make([]float32, len(b))
			for i, x := range b {
				scaled[i] = 3.5 * x
			}
			q2, norm2 := models.Quantize(nil, scaled)
			worst = max(worst, math.Abs(models.CosineQuantized(a, q2, norm2)-models.Cosine(a, b)))
		}
	}
	if worst > 0.005 {
		t.Errorf("largest difference from the float cosine %.4f, want ≤ 0.005", worst)
	}
	for _, bad := range [][]float32{{0, 0, 0}, {1, float32(math.NaN()), 0}, {float32(math.Inf(1)), 1, 1}} {
		q, norm := models.Quantize(nil, bad)
		if norm != 0 || models.CosineQuantized([]float32{1, 1, 1}, q, norm) != 0 {
			t.Errorf("Quantize(%v) = %v, norm %v: want zeros", bad, q, norm)
		}
	}
	if c := models.CosineQuantized([]float32{1, 0}, []int8{1, 0, 0}, 1); c != 0 {
		t.Errorf("mismatched lengths: %v, want 0", c)
	}
	dst, _ := models.Quantize([]int8{7}, []float32{1, -1})
	if len(dst) != 3 || dst[0] != 7 || dst[1] != 127 || dst[2] != -127 {
		t.Errorf("Quantize appends: %v, want [7 127 -127]", dst)
	}
}
