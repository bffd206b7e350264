package models

import (
	"context"
	"math"
	"testing"
)

func TestPassageModelNamesTheFormat(t *testing.T) {
	t.Parallel()
	if got, want := PassageModel(fakeEmbedder{}), "fake-v1+"+PassageFormat; got != want {
		t.Errorf("PassageModel %q, want %q", got, want)
	}
}

func TestPassageVectorWeighsTextAndTitleEqually(t *testing.T) {
	t.Parallel()
	text := []float32{3, 0, 0} // long passage: large norm
	title := []float32{0, 0.5, 0}
	v := PassageVector(text, title)
	// The sum of the unit vectors, normalised: equal parts whatever the norms.
	want := []float64{1 / math.Sqrt2, 1 / math.Sqrt2, 0}
	for i := range v {
		if math.Abs(float64(v[i])-want[i]) > 1e-6 {
			t.Fatalf("PassageVector %v, want %v", v, want)
		}
	}
	if c1, c2 := Cosine(v, text), Cosine(v, title); math.Abs(c1-c2) > 1e-6 {
		t.Errorf("cosine with text %.4f, with title %.4f: want equal", c1, c2)
	}
	if text[0] != 3 || title[1] != 0.5 {
		t.Error("inputs modified")
	}
}

func TestPassageVectorWithoutTitleIsTheText(t *testing.T) {
	t.Parallel()
	text := []float32{0.6, 0.8}
	for _, title := range [][]float32{nil, {0, 0}, {1, 0, 0}} {
		if v := PassageVector(text, title); &v[0] != &text[0] {
			t.Errorf("title %v: got %v, want the text vector unchanged", title, v)
		}
	}
	// A text without words (zero vector) takes the title's direction.
	v := PassageVector([]float32{0, 0}, []float32{0, 2})
	if v[0] != 0 || math.Abs(float64(v[1])-1) > 1e-6 {
		t.Errorf("zero text: got %v, want [0 1]", v)
	}
	// Opposite unit vectors sum to zero: the text is kept.
	if v := PassageVector([]float32{1, 0}, []float32{-1, 0}); v[0] != 1 {
		t.Errorf("zero sum: got %v, want the text", v)
	}
}

// fakeEmbedder is an Embedder with a fixed model id.
type fakeEmbedder struct{}

func (fakeEmbedder) Model() string { return "fake-v1" }
func (fakeEmbedder) Dim() int      { return 2 }
func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
