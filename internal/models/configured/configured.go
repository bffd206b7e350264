// Package configured builds the model capabilities (Embedder, NLI, Reranker,
// LLM) a worker process uses, from its configuration: the built-in
// deterministic baselines by default, or HTTP clients of an OpenAI-compatible
// server (openai), Hugging Face text-embeddings-inference (tei) or a
// Jina-style /v1/rerank server (jina), each behind its own resilient HTTP
// client (retries honouring Retry-After, circuit breaker, bounded
// concurrency, per-backend observations such as metrics).
package configured

import (
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
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

// New builds the configured capabilities, reporting to obs (internal/metrics
// in a worker; nil records nothing).
func New(cfg config.Config, obs httpx.Observer) (Models, error) {
	var out Models
	var err error
	models := cfg.Models()
	if out.Embedder, out.MinSimilarity, err = newEmbedder(models["embed"], cfg.EmbedDim, obs); err != nil {
		return out, fmt.Errorf("embed backend: %w", err)
	}
	if cfg.MinSimilarity >= 0 {
		out.MinSimilarity = cfg.MinSimilarity
	}
	if out.NLI, err = NewNLI(cfg, obs); err != nil {
		return out, err
	}
	if out.Reranker, err = newReranker(models["rerank"], obs); err != nil {
		return out, fmt.Errorf("rerank backend: %w", err)
	}
	if out.LLM, err = newLLM(models["llm"], obs); err != nil {
		return out, fmt.Errorf("llm backend: %w", err)
	}
	return out, nil
}

// NewNLI builds only the configured NLI capability (for evaluation).
func NewNLI(cfg config.Config, obs httpx.Observer) (models.NLI, error) {
	n, err := newNLI(cfg.Models()["nli"], cfg.NLITemp, obs)
	if err != nil {
		return nil, fmt.Errorf("nli backend: %w", err)
	}
	return n, nil
}

func newEmbedder(mc config.Model, dim int, obs httpx.Observer) (models.Embedder, float64, error) {
	switch mc.Backend {
	case "builtin":
		e, err := builtin.NewHybridEmbedder(dim)
		return e, builtin.EmbedderMinSimilarity, err
	case "hash":
		return builtin.NewHashEmbedder(dim), builtin.HashEmbedderMinSimilarity, nil
	case "openai":
		e, err := oai.NewEmbedder(openAIOptions(mc, "embed", dim, obs))
		return e, NeuralMinSimilarity, err
	case "tei":
		o := teiOptions(mc, "embed", obs)
		o.Dim = dim
		e, err := tei.NewEmbedder(o)
		return e, NeuralMinSimilarity, err
	}
	return nil, 0, fmt.Errorf("backend %q is not available for embeddings", mc.Backend)
}

func newNLI(mc config.Model, temperature float64, obs httpx.Observer) (models.NLI, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewLearnedNLI()
	case "openai":
		return oai.NewNLI(openAIOptions(mc, "nli", 0, obs))
	case "tei":
		o := teiOptions(mc, "nli", obs)
		o.Temperature = temperature
		return tei.NewNLI(o)
	}
	return nil, fmt.Errorf("backend %q is not available for NLI", mc.Backend)
}

func newReranker(mc config.Model, obs httpx.Observer) (models.Reranker, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewBM25Reranker(), nil
	case "tei":
		return tei.NewReranker(teiOptions(mc, "rerank", obs))
	case "jina":
		return jina.New(jina.Options{BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch,
			HTTP: httpClient(mc, "rerank", obs), Observer: obs})
	}
	return nil, fmt.Errorf("backend %q is not available for reranking", mc.Backend)
}

func newLLM(mc config.Model, obs httpx.Observer) (models.LLM, error) {
	switch mc.Backend {
	case "builtin":
		return builtin.NewSentenceLLM(), nil
	case "openai":
		return oai.NewLLM(openAIOptions(mc, "llm", 0, obs))
	}
	return nil, fmt.Errorf("backend %q is not available for the LLM", mc.Backend)
}

// NeuralMinSimilarity is the cosine floor used with neural embedding models
// (ARCHITECTURE.md §5.2's 0.55) unless EVF_MIN_SIMILARITY sets one; calibrate it per
// model.
const NeuralMinSimilarity = 0.55

// httpClient is the resilient HTTP client of one capability's backend.
func httpClient(mc config.Model, capability string, obs httpx.Observer) *httpx.Client {
	retries := mc.Retries
	if retries == 0 {
		retries = -1 // httpx reads 0 as "default"
	}
	return httpx.New(httpx.Options{
		Backend: mc.Backend, Capability: capability, Timeout: mc.Timeout, MaxRetries: retries,
		MaxConcurrency: mc.Concurrency, BreakerFailures: mc.BreakerFailures, BreakerCooldown: mc.BreakerCooldown,
		Observer: obs,
	})
}

func teiOptions(mc config.Model, capability string, obs httpx.Observer) tei.Options {
	return tei.Options{BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch,
		HTTP: httpClient(mc, capability, obs), Observer: obs}
}

func openAIOptions(mc config.Model, capability string, dim int, obs httpx.Observer) oai.Options {
	return oai.Options{
		BaseURL: mc.URL, Model: mc.ModelName, APIKey: mc.APIKey, BatchSize: mc.Batch, Dim: dim,
		Concurrency: mc.Concurrency, HTTP: httpClient(mc, capability, obs), Observer: obs,
	}
}
