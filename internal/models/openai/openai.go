// Package openaibackend implements models.Embedder, models.LLM and models.NLI
// against any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp):
// embeddings via POST {BaseURL}/embeddings and chat with JSON-schema output via
// POST {BaseURL}/chat/completions.
//
// # Base URL
//
// BaseURL is the API root including its version prefix, e.g.
// http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM,
// https://api.openai.com/v1 for OpenAI. The package appends /embeddings and
// /chat/completions to it and adds nothing else; a 404 answer says so in the
// error.
//
// # Wire format
//
// Embeddings go through go-openai's CreateEmbeddings with encoding_format
// "float" sent explicitly (go-openai v1.43 omits the field by default; all of
// OpenAI, Ollama and vLLM then answer floats anyway, but being explicit keeps
// a server whose default is base64 from answering a shape we do not parse).
// No "dimensions" field is sent: vLLM rejects it for models without
// Matryoshka support; the configured Dim is checked on the answer instead.
//
// Chat requests are NOT sent through go-openai's CreateChatCompletion:
// ChatCompletionRequest.Temperature is a float32 with omitempty in v1.43, so
// temperature 0 is never put on the wire and the server applies its own
// default (1.0 for OpenAI and Ollama's OpenAI layer). Instead the package
// marshals its own small request struct (model, messages, temperature —
// always present, always 0 —, max_tokens, optional seed, response_format,
// stream false) and posts it through the same Doer, decoding the answer into
// go-openai's ChatCompletionResponse. It sends max_tokens, which OpenAI,
// Ollama, vLLM and llama.cpp all read, not max_completion_tokens, which
// Ollama ignores. The response_format is
// {"type":"json_schema","json_schema":{"name":…,"strict":true,"schema":…}}.
// Reasoning models that refuse temperature 0 (OpenAI o-series, gpt-5) are
// not supported; use a chat model.
//
// # Errors
//
// Every failure wraps one remoteerr kind. Transport failures, timeouts, 408,
// 424, 429 and 5xx wrap remoteerr.ErrUnavailable (a resilient Doer such as
// httpx.Client retries them first); other 4xx wrap remoteerr.ErrRejected; an
// answer without the documented shape wraps remoteerr.ErrBadResponse and names
// what was wrong. When the caller's context ends the context error is returned
// (wrapped), never a sentinel. Bad answers are counted as model errors of kind
// "bad_response".
//
// # Model answers
//
// The content of a chat answer must be one JSON object matching the schema:
// no unknown fields, no missing fields, no wrong types, nothing after the
// object. Two wrappings that local models produce even under json_schema are
// tolerated and removed first: a ``` or ```json code fence around the object
// and a leading <think>…</think> block. An answer cut off by max_tokens
// (finish_reason "length"), a refusal, a content filter stop or empty
// content is rejected. Confidences must lie in [0,1] and are never clamped:
// a model that answers 85 misread the prompt, and clamping it to 1 would
// store a made-up certainty. Relevance is the exception documented on
// NewLLM.
//
// # Bounded answers
//
// Every answer is read within a bound computed from its request:
// httpx.EmbeddingsBound of the batch and the known dimension,
// httpx.ChatBound of max_tokens. The byte past it stops the reading with
// remoteerr.ErrBadResponse naming the bound, so an endless or padded answer
// costs no more memory than the request could need.
//
// All types are safe for concurrent use.
package openaibackend

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// backendName is the metric label of this backend.
const backendName = "openai"

// Defaults of Options fields left zero.
const (
	defaultBatchSize     = 64
	defaultMaxChunkChars = 12000
	defaultMaxTokens     = 4096
	defaultConcurrency   = 4
	// shortAnswerTokens caps max_tokens of the relevance and NLI answers
	// ({"score":…}, {"label":…,"confidence":…}); it bounds the damage of a
	// model that pads JSON with endless whitespace.
	shortAnswerTokens = 256
	// minChunkChars is the smallest MaxChunkChars accepted.
	minChunkChars = 100
	// defaultTimeout is the timeout of the plain http.Client used when
	// Options.HTTP is nil.
	defaultTimeout = 120 * time.Second
)

// Doer sends one HTTP request; *http.Client and *httpx.Client satisfy it (it
// is go-openai's HTTPDoer).
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Options configures NewEmbedder, NewLLM and NewNLI. Zero numeric fields take
// the defaults named on each field.
type Options struct {
	// BaseURL is the API root including the version prefix, e.g.
	// http://localhost:11434/v1 (Ollama). Required.
	BaseURL string
	// Model is the model name sent to the server, e.g. "nomic-embed-text" or
	// "qwen2.5:7b-instruct". Required.
	Model string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends no
	// Authorization header (local servers).
	APIKey string
	// BatchSize is the number of texts per embeddings request (default 64).
	BatchSize int
	// Dim is the embedding dimension every answer must have. 0 learns it
	// from the first successful answer and enforces it from then on; until
	// then Dim() returns 0.
	Dim int
	// MaxChunkChars is the longest piece of page text (in characters) put
	// into one extraction prompt (default 12000, at least 100); longer pages
	// are cut on paragraph, then sentence, then word boundaries. Relevance
	// and NLI texts are cut to their first piece of this size.
	MaxChunkChars int
	// MaxTokens is max_tokens of a claim extraction answer (default 4096).
	// Relevance and NLI answers use min(MaxTokens, 256).
	MaxTokens int
	// Seed, when set, is sent as "seed" with every chat request.
	Seed *int
	// Concurrency bounds the requests one call has in flight: embedding
	// batches, extraction chunks, NLI pairs (default 4). The Doer may bound
	// the process-wide number further.
	Concurrency int
	// HTTP sends the requests; nil uses a plain http.Client with a 120 s
	// timeout and no retries. Production passes an *httpx.Client.
	HTTP Doer
	// Observer receives token counts, batch sizes and bad-answer counts; nil
	// records nothing.
	Observer httpx.Observer
}

// client is the part shared by the Embedder, LLM and NLI.
type client struct {
	base        string // BaseURL without trailing slash
	model       string
	apiKey      string
	http        *wireDoer
	obs         httpx.Observer // never nil
	seed        *int
	batch       int
	dim         int
	chunkChars  int
	maxTokens   int
	concurrency int
}

// newClient validates o and fills in the defaults.
func newClient(o Options) (*client, error) {
	base := strings.TrimRight(strings.TrimSpace(o.BaseURL), "/")
	u, err := url.Parse(base)
	switch {
	case base == "":
		return nil, errors.New("openai backend: BaseURL is empty (want e.g. http://localhost:11434/v1)")
	case err != nil:
		return nil, fmt.Errorf("openai backend: BaseURL %q: %w", o.BaseURL, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, fmt.Errorf("openai backend: BaseURL %q is not an http(s) URL", o.BaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("openai backend: BaseURL %q has a query or fragment; want the API root, e.g. http://localhost:11434/v1", o.BaseURL)
	case strings.TrimSpace(o.Model) == "":
		return nil, errors.New("openai backend: Model is empty")
	case o.BatchSize < 0:
		return nil, fmt.Errorf("openai backend: BatchSize %d is negative", o.BatchSize)
	case o.Dim < 0:
		return nil, fmt.Errorf("openai backend: Dim %d is negative", o.Dim)
	case o.MaxChunkChars != 0 && o.MaxChunkChars < minChunkChars:
		return nil, fmt.Errorf("openai backend: MaxChunkChars %d is below %d", o.MaxChunkChars, minChunkChars)
	case o.MaxTokens < 0:
		return nil, fmt.Errorf("openai backend: MaxTokens %d is negative", o.MaxTokens)
	case o.Concurrency < 0:
		return nil, fmt.Errorf("openai backend: Concurrency %d is negative", o.Concurrency)
	}
	c := &client{
		base: base, model: strings.TrimSpace(o.Model), apiKey: o.APIKey, obs: o.Observer,
		batch: o.BatchSize, dim: o.Dim, chunkChars: o.MaxChunkChars, maxTokens: o.MaxTokens,
		concurrency: o.Concurrency,
	}
	if c.obs == nil {
		c.obs = httpx.NoObserver
	}
	if o.Seed != nil {
		s := *o.Seed
		c.seed = &s
	}
	if c.batch == 0 {
		c.batch = defaultBatchSize
	}
	if c.chunkChars == 0 {
		c.chunkChars = defaultMaxChunkChars
	}
	if c.maxTokens == 0 {
		c.maxTokens = defaultMaxTokens
	}
	if c.concurrency == 0 {
		c.concurrency = defaultConcurrency
	}
	inner := o.HTTP
	if inner == nil {
		inner = &http.Client{Timeout: defaultTimeout}
	}
	c.http = &wireDoer{inner: inner}
	return c, nil
}

// shortTokens is max_tokens of a relevance or NLI answer.
func (c *client) shortTokens() int { return min(c.maxTokens, shortAnswerTokens) }

// bad counts a bad answer of capability and returns err unchanged.
func (c *client) bad(capability string, err error) error {
	if errors.Is(err, remoteerr.ErrBadResponse) {
		c.obs.ModelError(backendName, capability, "bad_response")
	}
	return err
}

// forEach calls fn(ctx, i) for every i in [0, n) with at most limit calls in
// flight. The first error cancels the context of the calls still running or
// waiting and is returned.
func forEach(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	sem := make(chan struct{}, max(1, limit))
	stopped := false
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			stopped = true
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && stopped {
		return context.Cause(ctx)
	}
	return first
}
