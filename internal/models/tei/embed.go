package tei

import (
	"context"
	"math"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Embedder is a models.Embedder backed by TEI's POST /embed.
type Embedder struct {
	e endpoint

	mu  sync.Mutex
	dim int // configured, or learned from the first answer; 0 until known
}

var _ models.Embedder = (*Embedder)(nil)

// NewEmbedder validates o and returns an Embedder for {BaseURL}/embed.
func NewEmbedder(o Options) (*Embedder, error) {
	e, err := newEndpoint(o, "/embed", "embed")
	if err != nil {
		return nil, err
	}
	if o.Dim < 0 {
		return nil, e.badOption("Dim %d is negative", o.Dim)
	}
	return &Embedder{e: e, dim: o.Dim}, nil
}

// Model returns "tei:<model>".
func (m *Embedder) Model() string { return m.e.model }

// Dim returns the configured dimension or, when none was configured, the one
// learned from the first successful answer; it is 0 until then (see Probe).
func (m *Embedder) Dim() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dim
}

// Probe makes sure Dim is known: when it is still 0 it embeds one short text
// to learn it. It returns the dimension.
func (m *Embedder) Probe(ctx context.Context) (int, error) {
	if d := m.Dim(); d > 0 {
		return d, nil
	}
	if _, err := m.Embed(ctx, []string{"dimension probe"}); err != nil {
		return 0, err
	}
	return m.Dim(), nil
}

// embedRequest is TEI's EmbedRequest.
type embedRequest struct {
	Inputs    []string `json:"inputs"`
	Normalize bool     `json:"normalize"`
	Truncate  bool     `json:"truncate"`
}

// Embed returns one L2-normalised vector per text, in order, in batches of
// BatchSize. An answer is read within httpx.EmbeddingsBound of its batch and
// the known dimension, one vector at a time; while the dimension is not
// known, a call of several texts sends its first text alone to learn it, so
// that no answer is bounded by a guessed dimension times a whole batch. No
// request is made for an empty slice.
func (m *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	rest := texts
	if len(rest) > 1 && m.Dim() == 0 {
		vecs, err := m.embedBatch(ctx, rest[:1])
		if err != nil {
			return nil, err
		}
		out, rest = append(out, vecs...), rest[1:]
	}
	err := chunks(len(rest), m.e.batch, func(lo, hi int) error {
		vecs, err := m.embedBatch(ctx, rest[lo:hi])
		out = append(out, vecs...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// embedBatch sends one request and returns its vectors, checked.
func (m *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	var resp [][]strictFloat
	req := embedRequest{Inputs: texts, Normalize: true, Truncate: true}
	bound := httpx.EmbeddingsBound(len(texts), m.Dim())
	if err := m.e.http.PostJSON(ctx, m.e.url, m.e.header, req, bound, &resp, len(texts)); err != nil {
		return nil, err
	}
	return m.check(resp, len(texts))
}

// check validates one answer for n texts and returns its vectors, normalised.
func (m *Embedder) check(resp [][]strictFloat, n int) ([][]float32, error) {
	if len(resp) != n {
		return nil, m.e.bad("%d vectors for %d texts", len(resp), n)
	}
	m.mu.Lock()
	want := m.dim
	m.mu.Unlock()
	got := len(resp[0])
	for i, v := range resp {
		if len(v) == 0 {
			return nil, m.e.bad("vector %d is empty", i)
		}
		if len(v) != got {
			return nil, m.e.bad("vector %d has dimension %d, vector 0 has %d", i, len(v), got)
		}
	}
	if want > 0 && got != want {
		return nil, m.e.bad("vectors have dimension %d, want %d", got, want)
	}
	vecs := make([][]float32, n)
	for i, v := range resp {
		// TEI's vectors are float32: round each component to float32 first,
		// as a client decoding into float32 would, so the result does not
		// depend on how the JSON numbers were printed.
		var ss float64
		for j, x := range v {
			f := float64(x)
			if !finite(f) || math.Abs(f) > math.MaxFloat32 {
				return nil, m.e.bad("vector %d component %d is %v, not a finite float32", i, j, f)
			}
			f = float64(float32(f))
			ss += f * f
		}
		norm := math.Sqrt(ss)
		if norm == 0 || !finite(norm) {
			return nil, m.e.bad("vector %d has norm %v and cannot be normalised", i, norm)
		}
		out := make([]float32, len(v))
		for j, x := range v {
			out[j] = float32(float64(float32(x)) / norm)
		}
		vecs[i] = out
	}
	if want == 0 {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.dim == 0 {
			m.dim = got
		} else if m.dim != got { // a concurrent call learned another dimension
			return nil, m.e.bad("vectors have dimension %d, want %d", got, m.dim)
		}
	}
	return vecs, nil
}
