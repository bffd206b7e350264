// Package configured builds the model capabilities (Embedder, NLI, Reranker,
// LLM) a worker process uses, from its configuration: the built-in
// deterministic baselines by default, or HTTP clients of an OpenAI-compatible
// server (openai), Hugging Face text-embeddings-inference (tei) or a
// Jina-style /v1/rerank server (jina), each behind its own resilient HTTP
// client (retries honouring Retry-After, circuit breaker, bounded
// concurrency, per-backend metrics).
package configured

import (
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/models/jina"
	oai "github.com/evidencefleet/evidencefleet/internal/models/openai"
	"github.com/evidencefleet/evidencefleet/internal/models/tei"
)

// Models are the four capabilities of one process.
type Models struct {
	Embedder models.Embedder
	NLI      models.NLI
	Reranker models.Reranker
	LLM      models.LLM
	// MinSimilarity is the calibrated cosine floor of the embedder
	// (ARCHITECTURE.md §5.2), unless the configuration sets one.
	MinSimilarity float64
}

// New builds the configured capabilities.
func New(cfg config.Config, m *metrics.Metrics) (Models, error) {
	var out Models
	var err error
	models := cfg.Models()
	if out.Embedder, out.MinSimilarity, err = newEmbedder(models["embed"], cfg.EmbedDim, m); err != nil {
		return out, fmt.Errorf("embed backend: %w", err)
	}
	if cfg.MinSimilarity >= 0 {
		out.MinSimilarity = cfg.MinSimilarity
	}
	if out.NLI, err = NewNLI(cfg, m); err != nil {
		return out, err
	}
	if out.Reranker, err = newReranker(models["rerank"], m); err != nil {
		return out, fmt.Errorf("rerank backend: %w", err)
	}
	if out.LLM, err = newLLM(models["llm"], m); err != nil {
		return out, fmt.Errorf("llm backend: %w", err)
	}
	return out, nil
}

// NewNLI builds only the configured NLI capability (for evaluation).
func NewNLI(cfg config.Config, m *metrics.Metrics) (models.NLI, error) {
	n, err := newNLI(cfg.Models()["nli"], cfg.NLITemp, m)
	if err != nil {
		return nil, fmt.Errorf("nli backend: %w", err)
	}
	return n, nil
}

func newEmbedder(mc config.Model, dim int, m *metrics.Metrics) (models.Embedder, float64, error) {
	switch mc.Backend {
	case "builtin":
		e, err := builtin.NewHybridEmbedder(dim)
		return e, builtin.EmbedderMinSimilarity, err
	case "hash":
		return builtin.NewHashEmbedder(dim), builtin.HashEmbedderMinSimilarity, nil
	case "openai":
		e, err := oai.NewEmbedder(openAIOptions(mc, "embed", dim, m))
		return e, NeuralMinSimilarity, err
	case "tei":
		o := teiOptions(mc, "embed", m)
		o.Dim = dim
		e, err := tei.NewEmbedder(o)
		return e, NeuralMinSimilarity, err
	}
	return nil, 0, fmt.Errorf("backend %q is not available for embeddings", mc.Backend)
}

func newNLI(mc config.Model, temperature float64, m *metrics.Metrics) (models.NLI, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewLearnedNLI()
	case "openai":
		return oai.NewNLI(openAIOptions(mc, "nli", 0, m))
	case "tei":
		o := teiOptions(mc, "nli", m)
		o.Temperature = temperature
		return tei.NewNLI(o)
	}
	return nil, fmt.Errorf("backend %q is not available for NLI", mc.Backend)
}

func newReranker(mc config.Model, m *metrics.Metrics) (models.Reranker, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewBM25Reranker(), nil
	case "tei":
		return tei.NewReranker(teiOptions(mc, "rerank", m))
	case "jina":
		return jina.New(jina.Options{BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch,
			HTTP: httpClient(mc, "rerank", m), Metrics: m})
	}
	return nil, fmt.Errorf("backend %q is not available for reranking", mc.Backend)
}

func newLLM(mc config.Model, m *metrics.Metrics) (models.LLM, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewSentenceLLM(), nil
	case "openai":
		return oai.NewLLM(openAIOptions(mc, "llm", 0, m))
	}
	return nil, fmt.Errorf("backend %q is not available for the LLM", mc.Backend)
}

// NeuralMinSimilarity is the cosine floor used with neural embedding models
// (ARCHITECTURE.md §5.2's 0.55) unless EVF_MIN_SIMILARITY sets one; calibrate it per
// model.
const NeuralMinSimilarity = 0.55

// httpClient is the resilient HTTP client of one capability's backend.
func httpClient(mc config.Model, capability string, m *metrics.Metrics) *httpx.Client {
	retries := mc.Retries
	if retries == 0 {
		retries = -1 // httpx reads 0 as "default"
	}
	return httpx.New(httpx.Options{
		Backend: mc.Backend, Capability: capability, Timeout: mc.Timeout, MaxRetries: retries,
		MaxConcurrency: mc.Concurrency, BreakerFailures: mc.BreakerFailures, BreakerCooldown: mc.BreakerCooldown,
		Metrics: m,
	})
}

func teiOptions(mc config.Model, capability string, m *metrics.Metrics) tei.Options {
	return tei.Options{BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch,
		HTTP: httpClient(mc, capability, m), Metrics: m}
}

func openAIOptions(mc config.Model, capability string, dim int, m *metrics.Metrics) oai.Options {
	return oai.Options{
		BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch, Dim: dim,
		Concurrency: mc.Concurrency, HTTP: httpClient(mc, capability, m), Metrics: m,
	}
}
