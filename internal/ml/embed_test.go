package ml_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/ml"
)

func embedOne(t *testing.T, e ml.Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 {
		t.Fatalf("got %d vectors, want 1", len(v))
	}
	return v[0]
}

func l2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestHashEmbedderModelAndDim(t *testing.T) {
	tests := []struct {
		dim       int
		wantDim   int
		wantModel string
	}{
		{0, ml.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{-3, ml.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{ml.HashEmbedderDim, ml.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{64, 64, "builtin-hash-ngram-v1-d64"},
		{300, 300, "builtin-hash-ngram-v1-d300"}, // not a power of two
	}
	for _, tt := range tests {
		e := ml.NewHashEmbedder(tt.dim)
		if e.Dim() != tt.wantDim || e.Model() != tt.wantModel {
			t.Errorf("NewHashEmbedder(%d): Dim %d Model %q, want %d %q", tt.dim, e.Dim(), e.Model(), tt.wantDim, tt.wantModel)
		}
		v := embedOne(t, e, "Global temperatures rose by 1.1 °C since 1900.")
		if len(v) != tt.wantDim {
			t.Errorf("dim %d: len %d", tt.dim, len(v))
		}
		if n := l2(v); math.Abs(n-1) > 1e-5 {
			t.Errorf("dim %d: norm %v, want 1", tt.dim, n)
		}
	}
}

func TestHashEmbedderNormAndDeterminism(t *testing.T) {
	texts := []string{
		"The quick brown fox jumps over the lazy dog.",
		"a",
		"the of and", // stop words only
		"Ünïcödé Straße café ÆØÅ",
		"数据 科学 机器学习",
		"Ελληνικά κείμενα",
		"covid-19 vaccines reduce hospitalisation by 90%",
		"CO2 CO2 CO2 CO2 CO2 CO2", // repeated token
	}
	e := ml.NewHashEmbedder(ml.HashEmbedderDim)
	a, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ml.NewHashEmbedder(ml.HashEmbedderDim).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if n := l2(a[i]); math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm %v, want 1", text, n)
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("%q: not deterministic at %d", text, j)
			}
		}
		// Batch and single calls agree.
		s := embedOne(t, e, text)
		for j := range s {
			if s[j] != a[i][j] {
				t.Fatalf("%q: batch and single embedding differ at %d", text, j)
			}
		}
	}
	// Case and punctuation do not matter.
	x := embedOne(t, e, "Hello, World!")
	y := embedOne(t, e, "hello world")
	if c := ml.Cosine(x, y); c < 0.9999 {
		t.Errorf("case/punctuation variants: cosine %v, want 1", c)
	}
}

// TestHashEmbedderGolden pins a few components so that a change of the
// hashing (which would invalidate stored embeddings) is noticed; bump the
// model id when it is intended.
func TestHashEmbedderGolden(t *testing.T) {
	v := embedOne(t, ml.NewHashEmbedder(ml.HashEmbedderDim), "Evidence supports the claim.")
	var nz int
	var sum float64
	for _, x := range v {
		if x != 0 {
			nz++
		}
		sum += float64(x)
	}
	const wantNZ, wantSum = 24, 0.146545
	if nz != wantNZ || math.Abs(sum-wantSum) > 1e-4 {
		t.Errorf("golden: %d non-zero, sum %.6f; want %d, %.6f", nz, sum, wantNZ, wantSum)
	}
}

func TestHashEmbedderEmpty(t *testing.T) {
	e := ml.NewHashEmbedder(0)
	other := embedOne(t, e, "some text")
	for _, text := range []string{"", "   ", "\t\n", "!!! ... ---"} {
		v := embedOne(t, e, text)
		if len(v) != e.Dim() {
			t.Fatalf("%q: len %d", text, len(v))
		}
		if l2(v) != 0 {
			t.Errorf("%q: want zero vector", text)
		}
		if c := ml.Cosine(v, other); c != 0 {
			t.Errorf("%q: cosine with zero vector %v, want 0", text, c)
		}
	}
	out, err := e.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

func TestHashEmbedderSimilarity(t *testing.T) {
	e := ml.NewHashEmbedder(0)
	tests := []struct{ a, b, unrelated string }{
		{
			"Global average temperatures have increased by about 1.1 degrees since pre-industrial times.",
			"Global temperature increased 1.1 degrees.",
			"The recipe calls for two cups of flour and a pinch of salt.",
		},
		{
			"The vaccine reduced hospitalisations among elderly patients in the trial.",
			"Vaccines reduce hospitalization of elderly patients.",
			"The football club signed a new striker for the season.",
		},
		{
			"A man is riding a bicycle down the street.",
			"A man rides his bike on the street.",
			"Stock markets fell sharply after the central bank announcement.",
		},
	}
	for _, tt := range tests {
		v, err := e.Embed(context.Background(), []string{tt.a, tt.b, tt.unrelated})
		if err != nil {
			t.Fatal(err)
		}
		rel, unrel := ml.Cosine(v[0], v[1]), ml.Cosine(v[0], v[2])
		if rel <= unrel {
			t.Errorf("%q: related %.3f <= unrelated %.3f", tt.a, rel, unrel)
		}
		if rel < ml.HashEmbedderMinSimilarity {
			t.Errorf("%q: related %.3f below HashEmbedderMinSimilarity", tt.a, rel)
		}
	}
}

func TestHashEmbedderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ml.NewHashEmbedder(0).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestCosine(t *testing.T) {
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
		if got := ml.Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s: Cosine = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTopK(t *testing.T) {
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
		got := ml.TopK(tt.scores, tt.k, tt.min)
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
			got := ml.TopK(scores, k, 0.3)
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
