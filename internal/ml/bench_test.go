package ml_test

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/ml"
)

// benchFragment is a typical ~300-character evidence fragment.
const benchFragment = "According to the latest assessment report, global mean surface temperature " +
	"increased by about 1.1 °C between 1850–1900 and 2011–2020, with larger increases over land " +
	"than over the ocean. Human activities, principally through emissions of greenhouse gases, " +
	"have unequivocally caused this warming, the report concludes."

const benchClaim = "Human greenhouse gas emissions did not cause global warming since 1850."

func BenchmarkHashEmbed(b *testing.B) {
	e := ml.NewHashEmbedder(ml.HashEmbedderDim)
	ctx := context.Background()
	texts := []string{benchFragment}
	b.SetBytes(int64(len(benchFragment)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHashEmbedBatch64(b *testing.B) {
	e := ml.NewHashEmbedder(ml.HashEmbedderDim)
	ctx := context.Background()
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = benchFragment
	}
	b.SetBytes(int64(64 * len(benchFragment)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLexicalNLI(b *testing.B) {
	nli := ml.NewLexicalNLI()
	ctx := context.Background()
	pairs := []ml.Pair{{Premise: benchFragment, Hypothesis: benchClaim}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nli.Judge(ctx, pairs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCosine(b *testing.B) {
	e := ml.NewHashEmbedder(ml.HashEmbedderDim)
	v, _ := e.Embed(context.Background(), []string{benchFragment, benchClaim})
	b.ReportAllocs()
	for b.Loop() {
		ml.Cosine(v[0], v[1])
	}
}

func BenchmarkTopK(b *testing.B) {
	// 10 000 candidate scores, keep the top 30 above 0.06 (DESIGN §5.2 shape).
	scores := make([]float64, 10000)
	x := uint64(1)
	for i := range scores {
		x = x*6364136223846793005 + 1442695040888963407
		scores[i] = float64(x>>11) / float64(1<<53)
	}
	b.ReportAllocs()
	for b.Loop() {
		ml.TopK(scores, 30, ml.HashEmbedderMinSimilarity)
	}
}
