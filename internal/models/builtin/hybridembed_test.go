package builtin_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

func newEmbedder(t *testing.T, dim int) *builtin.HybridEmbedder {
	t.Helper()
	e, err := builtin.NewHybridEmbedder(dim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderModelAndDim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dim       int
		wantDim   int
		wantModel string
	}{
		{0, builtin.EmbedderDim, "builtin-hash-glove-v1"},
		{356, 356, "builtin-hash-glove-v1"},
		{612, 612, "builtin-hash-glove-v1-d612"},
		{116, 116, "builtin-hash-glove-v1-d116"},
	}
	for _, tt := range tests {
		checkModelAndDim(t, newEmbedder(t, tt.dim), tt.dim, tt.wantDim, tt.wantModel)
	}
	for _, dim := range []int{115, 64, -1} {
		if _, err := builtin.NewHybridEmbedder(dim); err == nil {
			t.Errorf("NewHybridEmbedder(%d): no error, want one (the word vectors need 100 and the hashed part 16)", dim)
		}
	}
}

// TestEmbedderParts: each part of the vector has half the weight when the
// text has words with vectors; a text without any (numbers, other
// scripts) is its hashed n-grams alone; a text without words is zero.
func TestEmbedderParts(t *testing.T) {
	t.Parallel()
	e := newEmbedder(t, 0)
	hd := e.Dim() - 100
	for _, tt := range []struct {
		text                 string
		wantHashed, wantWord float64 // squared length of each part
	}{
		{"Sea ice in the Arctic is melting.", 0.5, 0.5},
		{"2019 1.5 CO2", 1, 0}, // CO2 has a digit: no vocabulary word
		{"数据 科学", 1, 0},
		{"the of and", 0.5, 0.5}, // stop words: hashed (damped), and no word vector…
		{"", 0, 0},
		{" .,; ", 0, 0},
	} {
		v := embedOne(t, e, tt.text)
		h, w := l2(v[:hd]), l2(v[hd:])
		if tt.text == "the of and" {
			// …so the word part is empty and the hashed part is all.
			tt.wantHashed, tt.wantWord = 1, 0
		}
		if math.Abs(h*h-tt.wantHashed) > 1e-5 || math.Abs(w*w-tt.wantWord) > 1e-5 {
			t.Errorf("%q: squared lengths %.3f (hashed) %.3f (words), want %.1f %.1f", tt.text, h*h, w*w, tt.wantHashed, tt.wantWord)
		}
	}
}

// TestEmbedderSeesMeaning: texts that share no word but are about the same
// thing are nearer than texts about different things, which hashed
// n-grams alone cannot tell apart (both share nothing).
func TestEmbedderSeesMeaning(t *testing.T) {
	t.Parallel()
	e := newEmbedder(t, 0)
	h := builtin.NewHashEmbedder(builtin.HashEmbedderDim)
	for _, tt := range []struct{ text, near, far string }{
		{"Glaciers are retreating fast.", "Ice sheets keep losing mass.", "Income tax rates were cut."},
		{"Hurricanes grow stronger over warm oceans.", "Tropical storms intensify above heated seas.", "The football league expanded."},
		{"Carbon dioxide emissions keep rising.", "Fossil fuel burning releases more greenhouse gases.", "The violinist performed a sonata."},
	} {
		v, n, f := embedOne(t, e, tt.text), embedOne(t, e, tt.near), embedOne(t, e, tt.far)
		near, far := models.Cosine(v, n), models.Cosine(v, f)
		if near < far+0.1 {
			t.Errorf("%q: cosine %.3f with %q, %.3f with %q: want the first clearly above", tt.text, near, tt.near, far, tt.far)
		}
		if near < builtin.EmbedderMinSimilarity {
			t.Errorf("%q: related text at %.3f, below EmbedderMinSimilarity", tt.text, near)
		}
		hv, hn, hf := embedOne(t, h, tt.text), embedOne(t, h, tt.near), embedOne(t, h, tt.far)
		t.Logf("%q: near %.3f far %.3f (hashed n-grams alone: %.3f %.3f)", tt.text, near, far, models.Cosine(hv, hn), models.Cosine(hv, hf))
	}
}

// TestEmbedderDeterministicAndConcurrent: batch and single calls, and
// calls from many goroutines, give the same vectors.
func TestEmbedderDeterministicAndConcurrent(t *testing.T) {
	t.Parallel()
	texts := []string{"The quick brown fox jumps over the lazy dog.", "Ünïcödé Straße café", "covid-19 vaccines reduce hospitalisation by 90%", "a"}
	e := newEmbedder(t, 0)
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(texts))
	for range 8 {
		wg.Go(func() {
			for i, text := range texts {
				v, err := newEmbedder(t, 0).Embed(context.Background(), []string{text})
				if err != nil {
					errs <- err.Error()
					return
				}
				for j := range v[0] {
					if v[0][j] != want[i][j] {
						errs <- text
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("differs alone or concurrently: %s", e)
	}
}
