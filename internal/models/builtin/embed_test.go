package builtin_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

func embedOne(t *testing.T, e models.Embedder, text string) []float32 {
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
	t.Parallel()
	tests := []struct {
		dim       int
		wantDim   int
		wantModel string
	}{
		{0, builtin.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{-3, builtin.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{builtin.HashEmbedderDim, builtin.HashEmbedderDim, "builtin-hash-ngram-v1"},
		{64, 64, "builtin-hash-ngram-v1-d64"},
		{300, 300, "builtin-hash-ngram-v1-d300"}, // not a power of two
	}
	for _, tt := range tests {
		checkModelAndDim(t, builtin.NewHashEmbedder(tt.dim), tt.dim, tt.wantDim, tt.wantModel)
	}
}

// checkModelAndDim checks the model id and vector length of e, made with
// dimension dim, and that it embeds a text as a unit vector.
func checkModelAndDim(t *testing.T, e models.Embedder, dim, wantDim int, wantModel string) {
	t.Helper()
	if e.Dim() != wantDim || e.Model() != wantModel {
		t.Errorf("dimension %d: Dim %d Model %q, want %d %q", dim, e.Dim(), e.Model(), wantDim, wantModel)
	}
	v := embedOne(t, e, "Global temperatures rose by 1.1 °C since 1900.")
	if len(v) != wantDim {
		t.Errorf("dimension %d: len %d", dim, len(v))
	}
	if n := l2(v); math.Abs(n-1) > 1e-5 {
		t.Errorf("dimension %d: norm %v, want 1", dim, n)
	}
}

func TestHashEmbedderNormAndDeterminism(t *testing.T) {
	t.Parallel()
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
	e := builtin.NewHashEmbedder(builtin.HashEmbedderDim)
	a, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := builtin.NewHashEmbedder(builtin.HashEmbedderDim).Embed(context.Background(), texts)
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
	if c := models.Cosine(x, y); c < 0.9999 {
		t.Errorf("case/punctuation variants: cosine %v, want 1", c)
	}
}

// TestHashEmbedderGolden pins a few components so that a change of the
// hashing (which would invalidate stored embeddings) is noticed; bump the
// model id when it is intended.
func TestHashEmbedderGolden(t *testing.T) {
	t.Parallel()
	v := embedOne(t, builtin.NewHashEmbedder(builtin.HashEmbedderDim), "Evidence supports the claim.")
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
	t.Parallel()
	e := builtin.NewHashEmbedder(0)
	other := embedOne(t, e, "some text")
	for _, text := range []string{"", "   ", "\t\n", "!!! ... ---"} {
		v := embedOne(t, e, text)
		if len(v) != e.Dim() {
			t.Fatalf("%q: len %d", text, len(v))
		}
		if l2(v) != 0 {
			t.Errorf("%q: want zero vector", text)
		}
		if c := models.Cosine(v, other); c != 0 {
			t.Errorf("%q: cosine with zero vector %v, want 0", text, c)
		}
	}
	out, err := e.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

func TestHashEmbedderSimilarity(t *testing.T) {
	t.Parallel()
	e := builtin.NewHashEmbedder(0)
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
		rel, unrel := models.Cosine(v[0], v[1]), models.Cosine(v[0], v[2])
		if rel <= unrel {
			t.Errorf("%q: related %.3f <= unrelated %.3f", tt.a, rel, unrel)
		}
		if rel < builtin.HashEmbedderMinSimilarity {
			t.Errorf("%q: related %.3f below HashEmbedderMinSimilarity", tt.a, rel)
		}
	}
}

func TestHashEmbedderCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := builtin.NewHashEmbedder(0).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
