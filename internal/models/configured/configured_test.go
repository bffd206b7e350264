package configured

import (
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models/builtin"

	"github.com/evidencefleet/evidencefleet/internal/config"
)

func TestNewSelectsTheConfiguredBackends(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		models [4]string // prefixes of embed, nli, rerank, llm model ids
		minSim float64
	}{
		{"builtin", nil, [4]string{"builtin-hash-glove", "builtin-learned-nli", "builtin-bm25", "builtin-sentence-claims"}, builtin.EmbedderMinSimilarity},
		{"the previous hashed n-gram embedder, no URL", map[string]string{"EVF_EMBED_BACKEND": "hash"},
			[4]string{"builtin-hash-ngram-v1", "builtin-learned-nli", "builtin-bm25", "builtin-sentence-claims"}, builtin.HashEmbedderMinSimilarity},
		{"http", map[string]string{
			"EVF_EMBED_BACKEND": "tei", "EVF_EMBED_URL": "http://tei:80", "EVF_EMBED_MODEL": "bge",
			"EVF_NLI_BACKEND": "openai", "EVF_NLI_URL": "http://llm/v1", "EVF_NLI_MODEL": "qwen",
			"EVF_RERANK_BACKEND": "jina", "EVF_RERANK_URL": "http://rr", "EVF_RERANK_MODEL": "jr",
			"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": "http://llm/v1", "EVF_LLM_MODEL": "qwen",
		}, [4]string{"tei:bge", "openai-nli:qwen", "jina:jr", "openai:qwen"}, NeuralMinSimilarity},
		{"tei nli and rerank, explicit floor", map[string]string{
			"EVF_EMBED_BACKEND": "openai", "EVF_EMBED_URL": "http://llm/v1", "EVF_EMBED_MODEL": "nomic",
			"EVF_NLI_BACKEND": "tei", "EVF_NLI_URL": "http://tei", "EVF_NLI_MODEL": "deberta",
			"EVF_RERANK_BACKEND": "tei", "EVF_RERANK_URL": "http://tei", "EVF_RERANK_MODEL": "bge-rr",
			"EVF_MIN_SIMILARITY": "0.4",
		}, [4]string{"openai:nomic", "tei:deberta", "tei:bge-rr", "builtin-sentence-claims"}, 0.4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "postgres://x")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{m.Embedder.Model(), m.NLI.Model(), m.Reranker.Model(), m.LLM.Model()}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.models[i]) {
					t.Errorf("model %d = %q, want prefix %q", i, got[i], tc.models[i])
				}
			}
			if m.MinSimilarity != tc.minSim {
				t.Errorf("MinSimilarity %v, want %v", m.MinSimilarity, tc.minSim)
			}
		})
	}
}
