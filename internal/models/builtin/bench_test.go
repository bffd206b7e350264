package builtin_test

import (
	"context"
	"strings"
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

func BenchmarkHashEmbed(b *testing.B) {
	benchEmbed(b, builtin.NewHashEmbedder(builtin.HashEmbedderDim), 1)
}

func BenchmarkHashEmbedBatch64(b *testing.B) {
	benchEmbed(b, builtin.NewHashEmbedder(builtin.HashEmbedderDim), 64)
}

// BenchmarkEmbed is the built-in embedder (hashed n-grams and word
// vectors) on the same text as BenchmarkHashEmbed.
func BenchmarkEmbed(b *testing.B) {
	e, err := builtin.NewHybridEmbedder(0)
	if err != nil {
		b.Fatal(err)
	}
	benchEmbed(b, e, 1)
}

func BenchmarkEmbedBatch64(b *testing.B) {
	e, err := builtin.NewHybridEmbedder(0)
	if err != nil {
		b.Fatal(err)
	}
	benchEmbed(b, e, 64)
}

// benchEmbed embeds n copies of benchFragment per call.
func benchEmbed(b *testing.B, e models.Embedder, n int) {
	ctx := context.Background()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = benchFragment
	}
	b.SetBytes(int64(n * len(benchFragment)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLearnedNLI judges one claim against one fragment.
func BenchmarkLearnedNLI(b *testing.B) {
	ctx := context.Background()
	pairs := []models.Pair{{Premise: benchFragment, Hypothesis: benchClaim}}
	b.ReportAllocs()
	for b.Loop() {
		// A new LearnedNLI each time: the premise is analysed every time.
		nli, err := builtin.NewLearnedNLI()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := nli.Judge(ctx, pairs); err != nil {
			b.Fatal(err)
		}
	}
}

// nliBatch builds a batch shaped like the worker's verify_nli job: claims
// claims, each judged against fragsPerClaim fragments drawn from a pool of
// shared fragments (so each claim text is the hypothesis of fragsPerClaim
// pairs and each fragment the premise of pairs of several claims). Claims
// are hypotheses of the tuning part of the named sample file (nliTuneDir);
// fragments join consecutive
// distinct premises until they reach fragmentLen bytes (0: one premise).
func nliBatch(b *testing.B, file string, claims, fragsPerClaim, fragmentLen int) []models.Pair {
	b.Helper()
	rows := loadNLI(b, nliTuneDir, file)
	var frags []string
	var cur strings.Builder
	prev := ""
	for _, r := range rows {
		if r.Premise == prev {
			continue
		}
		prev = r.Premise
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(r.Premise)
		if cur.Len() >= fragmentLen {
			frags = append(frags, cur.String())
			cur.Reset()
		}
	}
	pool := min(len(frags), 3*fragsPerClaim)
	pairs := make([]models.Pair, 0, claims*fragsPerClaim)
	for c := range claims {
		claim := rows[(c*97)%len(rows)].Hypothesis
		for j := range fragsPerClaim {
			pairs = append(pairs, models.Pair{Premise: frags[(c*7+j)%pool], Hypothesis: claim})
		}
	}
	return pairs
}

// BenchmarkLearnedNLIBatch judges one verify_nli-shaped batch of 10 claims ×
// 20 fragments (200 pairs, claim by claim, each fragment judged against
// about three claims) and reports the time per pair: "sentence" uses single
// SNLI premises as fragments, "fragment300" joins MNLI premises to fragments
// of about 300 bytes. The whole batch goes to one Judge call, except in the
// "calls32" shapes, which send it in calls of 32 pairs as verify_nli's
// default NLI batch size does. Every iteration uses a new LearnedNLI, so
// that no premise analysis is kept from the previous one, except in "warm",
// where they all are (the same fragments judged again for other claims).
func BenchmarkLearnedNLIBatch(b *testing.B) {
	benchNLIBatch(b, func() models.NLI {
		nli, err := builtin.NewLearnedNLI()
		if err != nil {
			b.Fatal(err)
		}
		return nli
	})
}

// benchNLIBatch runs the shapes of BenchmarkLearnedNLIBatch on the NLI
// newNLI makes.
func benchNLIBatch(b *testing.B, newNLI func() models.NLI) {
	shapes := []struct {
		name, file string
		fragLen    int
		call       int // pairs per Judge call; 0: all
		warm       bool
	}{
		{"sentence", "snli.tsv", 0, 0, false},
		{"fragment300", "mnli_matched.tsv", 300, 0, false},
		{"fragment300-calls32", "mnli_matched.tsv", 300, 32, false},
		{"fragment300-calls32-warm", "mnli_matched.tsv", 300, 32, true},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			pairs := nliBatch(b, s.file, 10, 20, s.fragLen)
			call := s.call
			if call == 0 {
				call = len(pairs)
			}
			ctx := context.Background()
			nli := newNLI()
			b.ReportAllocs()
			for b.Loop() {
				if !s.warm {
					nli = newNLI()
				}
				for start := 0; start < len(pairs); start += call {
					if _, err := nli.Judge(ctx, pairs[start:min(start+call, len(pairs))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs)), "ns/pair")
		})
	}
}
