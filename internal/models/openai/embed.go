package openaibackend

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// embedder implements models.Embedder.
type embedder struct {
	c   *client
	oai *openai.Client

	mu  sync.Mutex
	dim int // configured, or learned from the first answer; 0 until then
}

var _ models.Embedder = (*embedder)(nil)

// NewEmbedder returns a models.Embedder that posts batches of Options.BatchSize
// texts to {BaseURL}/embeddings. Model() is "openai:<model>". Vectors are
// matched to texts by their "index" field (not by their order in "data"),
// checked (count, indices, dimension, finite values, not all zero) and
// L2-normalised. A text that is empty or only white space is not sent and
// gets the zero vector, like the built-in embedder; before the dimension is
// known (Dim 0 and no answer yet) a call whose texts are all blank fails with
// remoteerr.ErrRejected, and a call of several texts sends its first text
// alone to learn it, so that no answer is bounded by a guessed dimension
// times a whole batch (httpx.EmbeddingsBound).
func NewEmbedder(o Options) (models.Embedder, error) {
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	cfg := openai.DefaultConfig(c.apiKey)
	cfg.BaseURL = c.base
	cfg.HTTPClient = c.http
	return &embedder{c: c, oai: openai.NewClientWithConfig(cfg), dim: c.dim}, nil
}

// Model implements models.Embedder.
func (e *embedder) Model() string { return "openai:" + e.c.model }

// Dim implements models.Embedder: the configured dimension, or the learned one (0
// before the first answer when none was configured).
func (e *embedder) Dim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// Embed implements models.Embedder.
func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var send []int // indices of the texts that go to the server
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			send = append(send, i)
		}
	}
	embed := func(ctx context.Context, idx []int) error {
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = texts[i]
		}
		vs, err := e.embedBatch(ctx, batch)
		if err != nil {
			return err
		}
		for j, i := range idx {
			out[i] = vs[j]
		}
		return nil
	}
	rest := send
	if len(rest) > 1 && e.Dim() == 0 {
		// Learn the dimension from one text first: an answer is bounded by
		// its batch times the dimension, which is only guessed until then.
		if err := embed(ctx, rest[:1]); err != nil {
			return nil, err
		}
		rest = rest[1:]
	}
	nb := (len(rest) + e.c.batch - 1) / e.c.batch
	err := forEach(ctx, nb, e.c.concurrency, func(ctx context.Context, b int) error {
		return embed(ctx, rest[b*e.c.batch:min(len(rest), (b+1)*e.c.batch)])
	})
	if err != nil {
		return nil, err
	}
	if len(send) < len(texts) {
		dim := e.Dim()
		if dim == 0 {
			return nil, fmt.Errorf("openai backend: embed: %w: %d blank texts and the embedding dimension is not known yet (set Dim)", remoteerr.ErrRejected, len(texts)-len(send))
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, nil
}

// embedBatch sends one request and returns its vectors in the order of batch.
func (e *embedder) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	e.c.obs.ModelBatch(backendName, "embed", len(batch))
	// go-openai reads the body itself: the wireDoer bounds it by this.
	ctx = httpx.WithBound(ctx, httpx.EmbeddingsBound(len(batch), e.Dim()))
	res, err := e.oai.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input:          batch,
		Model:          openai.EmbeddingModel(e.c.model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat,
	})
	if err != nil {
		if isClassified(err) {
			return nil, e.c.bad("embed", err)
		}
		// The wire doer classifies what went wrong reading the 2xx body
		// (past its bound, the connection broken), so whatever else failed
		// is the decoding of that body.
		return nil, e.c.bad("embed", fmt.Errorf("openai backend: POST /embeddings: %w: decoding the answer: %v", remoteerr.ErrBadResponse, err))
	}
	e.c.obs.ModelTokens(backendName, "embed", "prompt", res.Usage.PromptTokens)
	cost.From(ctx).Tokens(res.Usage.PromptTokens, 0)
	vs, err := e.check(res.Data, len(batch))
	if err != nil {
		return nil, e.c.bad("embed", fmt.Errorf("openai backend: POST /embeddings: %w: %w", remoteerr.ErrBadResponse, err))
	}
	return vs, nil
}

// check matches the answer's vectors to the n inputs by index, enforces the
// dimension (learning it when unknown), rejects non-finite and all-zero
// vectors and L2-normalises.
func (e *embedder) check(data []openai.Embedding, n int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(data), n)
	}
	out := make([][]float32, n)
	first := -1
	for k, d := range data {
		if d.Index < 0 || d.Index >= n {
			return nil, fmt.Errorf("data[%d] has index %d outside [0,%d)", k, d.Index, n)
		}
		if out[d.Index] != nil {
			return nil, fmt.Errorf("index %d appears twice", d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding %d is empty", d.Index)
		}
		if first < 0 {
			first = len(d.Embedding)
		} else if len(d.Embedding) != first {
			return nil, fmt.Errorf("mixed dimensions in one answer: %d and %d (index %d)", first, len(d.Embedding), d.Index)
		}
		v, err := normalise(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("embedding %d: %w", d.Index, err)
		}
		out[d.Index] = v
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dim == 0 {
		e.dim = first // learned from the first good answer, enforced from now on
	} else if first != e.dim {
		return nil, fmt.Errorf("embeddings have dimension %d, want %d", first, e.dim)
	}
	return out, nil
}

// normalise returns v scaled to unit L2 norm; NaN, ±Inf and the all-zero
// vector are errors.
func normalise(v []float32) ([]float32, error) {
	var ss float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("component %d is %v", i, x)
		}
		ss += f * f
	}
	if ss == 0 {
		return nil, fmt.Errorf("all %d components are zero", len(v))
	}
	norm := math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out, nil
}
