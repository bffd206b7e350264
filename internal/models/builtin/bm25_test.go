package builtin_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

var _ models.Reranker = builtin.NewBM25Reranker()

func rerank(t *testing.T, query string, docs []string) []float64 {
	t.Helper()
	scores, err := builtin.NewBM25Reranker().Rerank(context.Background(), query, docs)
	if err != nil {
		t.Fatalf("Rerank(%q): %v", query, err)
	}
	if len(scores) != len(docs) {
		t.Fatalf("Rerank(%q): %d scores for %d docs", query, len(scores), len(docs))
	}
	for i, s := range scores {
		if math.IsNaN(s) || s < 0 || s >= 1 {
			t.Errorf("Rerank(%q): doc %d score %v outside [0,1)", query, i, s)
		}
	}
	return scores
}

// TestBM25Ranking checks orderings BM25 must produce: the doc holding the
// query terms first, rare terms weighing more than common ones, short docs
// beating long docs with the same matches, inflections matching.
func TestBM25Ranking(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("The committee met on Tuesday and discussed the agenda at length. ", 6)
	tests := []struct {
		name   string
		query  string
		docs   []string
		better int // index of the doc that must score highest
		worse  int // index of a doc that must score strictly lower
	}{
		{
			name:  "relevant first",
			query: "measles vaccine safety",
			docs: []string{
				"The city council approved a new budget for road repairs.",
				"A large trial found the measles vaccine safe, with no rise in serious adverse events.",
				"Vaccine supply chains were disrupted during the winter.",
			},
			better: 1, worse: 2,
		},
		{
			name:  "rare term beats common term",
			query: "climate glacier",
			docs: []string{
				"Climate policy was debated in parliament.",
				"Climate models were compared across institutes.",
				"Climate finance grew last year.",
				"The glacier retreated by two kilometres.",
			},
			better: 3, worse: 0,
		},
		{
			name:  "length normalisation",
			query: "glacier",
			docs: []string{
				filler + "A glacier was mentioned once. " + filler,
				"A glacier was mentioned once.",
			},
			better: 1, worse: 0,
		},
		{
			name:  "term frequency",
			query: "glacier",
			docs: []string{
				"The glacier moved; the glacier cracked; the glacier calved.",
				"The valley froze; the lake cracked; the glacier calved.",
			},
			better: 0, worse: 1,
		},
		{
			name:  "stemming and case",
			query: "Running SHOES",
			docs: []string{
				"She runs every day in her new shoe.",
				"He bought a hat.",
			},
			better: 0, worse: 1,
		},
		{
			name:  "stop words ignored",
			query: "the effects of the drug",
			docs: []string{
				"The cat of the house sat on the mat of the hall.",
				"Drug effects were small.",
			},
			better: 1, worse: 0,
		},
		{
			name:  "numbers are terms",
			query: "1,000 deaths",
			docs: []string{
				"About 1000 deaths were reported.",
				"About 2000 deaths were reported.",
			},
			better: 0, worse: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rerank(t, tt.query, tt.docs)
			if top := models.TopK(s, 1, 0); len(top) != 1 || top[0] != tt.better {
				t.Errorf("best doc %v, want %d (scores %v)", top, tt.better, s)
			}
			if !(s[tt.worse] < s[tt.better]) {
				t.Errorf("doc %d score %.4f not below doc %d score %.4f", tt.worse, s[tt.worse], tt.better, s[tt.better])
			}
		})
	}
}

// TestBM25Squashing checks the documented mapping: no query term → 0, a
// document of average length holding every query term once → 0.5.
func TestBM25Squashing(t *testing.T) {
	t.Parallel()
	s := rerank(t, "glacier retreat", []string{
		"glacier retreat observed",
		"river flood warning",
		"snow cover",
	})
	if s[1] != 0 || s[2] != 0 {
		t.Errorf("docs without query terms scored %v, %v; want 0", s[1], s[2])
	}
	// Every doc has three terms, so doc 0 has the average length.
	s = rerank(t, "glacier retreat", []string{
		"glacier retreat observed",
		"river flood warning",
		"snow cover melting",
	})
	if math.Abs(s[0]-0.5) > 1e-12 {
		t.Errorf("average-length doc with each query term once scored %v, want 0.5", s[0])
	}
}

func TestBM25EdgeCases(t *testing.T) {
	t.Parallel()
	r := builtin.NewBM25Reranker()
	if r.Model() != "builtin-bm25-v1" {
		t.Errorf("Model = %q", r.Model())
	}
	ctx := context.Background()
	for _, docs := range [][]string{nil, {}} {
		out, err := r.Rerank(ctx, "query", docs)
		if err != nil || out == nil || len(out) != 0 {
			t.Errorf("Rerank(%v docs) = %v, %v; want empty, nil", docs, out, err)
		}
	}
	docs := []string{"A glacier.", "", "The and of."}
	for _, q := range []string{"", "   ", "the of and", "!!!"} {
		s := rerank(t, q, docs)
		for i, v := range s {
			if v != 0 {
				t.Errorf("query %q: doc %d scored %v, want 0", q, i, v)
			}
		}
	}
	s := rerank(t, "glacier", []string{"", "", ""})
	for i, v := range s {
		if v != 0 {
			t.Errorf("empty docs: doc %d scored %v, want 0", i, v)
		}
	}
	s = rerank(t, "数据 glacier Straße", []string{"Die Straße ist lang.", "数据科学", "glacier"})
	if s[0] == 0 || s[2] == 0 {
		t.Errorf("non-ASCII terms not matched: %v", s)
	}
}

func TestBM25Deterministic(t *testing.T) {
	t.Parallel()
	docs := []string{
		"Sea levels rose by 20 cm since 1900.",
		"Sea ice extent declined in the Arctic.",
		"Levels of ozone fell.",
		"The sea is blue.",
	}
	q := "sea level rise since 1900"
	a := rerank(t, q, docs)
	b := rerank(t, q, docs)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("doc %d: %v then %v", i, a[i], b[i])
		}
	}
	// The collection is a set: permuting it permutes the scores.
	perm := []int{2, 0, 3, 1}
	pd := make([]string, len(docs))
	for i, j := range perm {
		pd[i] = docs[j]
	}
	c := rerank(t, q, pd)
	for i, j := range perm {
		if math.Abs(c[i]-a[j]) > 1e-12 {
			t.Errorf("permuted doc %d: %v, unpermuted %v", j, c[i], a[j])
		}
	}
}

func TestBM25Cancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := builtin.NewBM25Reranker().Rerank(ctx, "q", []string{"q"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func BenchmarkBM25Rerank100(b *testing.B) {
	r := builtin.NewBM25Reranker()
	ctx := context.Background()
	docs := make([]string, 100)
	words := strings.Fields(benchFragment)
	for i := range docs {
		// rotate the fragment so documents differ
		k := i % len(words)
		docs[i] = strings.Join(append(append([]string{}, words[k:]...), words[:k]...), " ")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Rerank(ctx, benchClaim, docs); err != nil {
			b.Fatal(err)
		}
	}
}
