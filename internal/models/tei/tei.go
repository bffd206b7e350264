// Package tei implements models.Embedder, models.NLI and models.Reranker
// against Hugging Face text-embeddings-inference (TEI): POST /embed, /predict
// (an NLI cross-encoder such as cross-encoder/nli-deberta-v3-small) and
// /rerank.
//
// Every answer is validated before use: counts, dimensions, labels, indices and
// scores that do not match the request are remoteerr.ErrBadResponse; transport
// failures, retries and the circuit breaker are httpx's. Every answer is read
// as a stream within the bound of its request (httpx.EmbeddingsBound,
// PredictionsBound, RanksBound): past it, remoteerr.ErrBadResponse naming
// the bound.
package tei

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// DefaultBatchSize is TEI's default --max-client-batch-size.
const DefaultBatchSize = 32

// Options configures one TEI endpoint. Fields that a capability does not use
// are ignored.
type Options struct {
	BaseURL   string // e.g. http://tei:8080; the endpoint paths are appended
	Model     string // model name, part of the stable model id "tei:<Model>"
	APIKey    string // sent as "Authorization: Bearer <APIKey>" when set
	BatchSize int    // inputs per request (default 32); keep ≤ TEI's --max-client-batch-size

	// Dim (Embedder) is the embedding dimension. > 0 is enforced on every
	// answer; 0 learns it from the first successful answer and enforces it
	// from then on.
	Dim int
	// Temperature (NLI) calibrates the class probabilities as
	// p_i ∝ p_i^(1/T): T > 1 softens, T < 1 sharpens; 0 means 1 (none).
	Temperature float64
	// LabelMap (NLI) maps the model's labels (matched case-insensitively) to
	// models.Supports / models.Refutes / models.Neutral. When set it replaces
	// the default {entailment: supports, contradiction: refutes, neutral:
	// neutral}; every relation it maps to must appear in each answer.
	LabelMap map[string]string

	// HTTP is the client to use; nil builds one with httpx defaults, backend
	// "tei", the capability's label and Observer.
	HTTP     *httpx.Client
	Observer httpx.Observer // used only when HTTP is nil; nil records nothing
}

// endpoint is what every capability shares.
type endpoint struct {
	url    string // full URL of the capability's path
	model  string // "tei:<Model>"
	header map[string][]string
	batch  int
	http   *httpx.Client
}

// newEndpoint validates o and builds the shared parts for path/capability.
func newEndpoint(o Options, path, capability string) (endpoint, error) {
	base, err := httpx.BaseURL(o.BaseURL)
	if err != nil {
		return endpoint{}, fmt.Errorf("tei %s: %w", capability, err)
	}
	if o.Model == "" {
		return endpoint{}, fmt.Errorf("tei %s: Model is required (it names the stored results)", capability)
	}
	if o.BatchSize < 0 {
		return endpoint{}, fmt.Errorf("tei %s: BatchSize %d is negative", capability, o.BatchSize)
	}
	e := endpoint{url: base + path, model: "tei:" + o.Model, header: httpx.Bearer(o.APIKey), batch: o.BatchSize, http: o.HTTP}
	if e.batch == 0 {
		e.batch = DefaultBatchSize
	}
	if e.http == nil {
		e.http = httpx.New(httpx.Options{Backend: "tei", Capability: capability, Observer: o.Observer})
	}
	return e, nil
}

// bad counts a validation failure and returns a remoteerr.ErrBadResponse error
// naming the endpoint and the problem.
func (e *endpoint) bad(format string, args ...any) error {
	e.http.Observer().ModelError(e.http.Backend(), e.http.Capability(), "bad_response")
	return fmt.Errorf("%s %s %s: %w: %s", e.http.Backend(), e.http.Capability(), e.url, remoteerr.ErrBadResponse, fmt.Sprintf(format, args...))
}

// chunks calls f for consecutive [lo,hi) ranges of at most size items.
func chunks(n, size int, f func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += size {
		if err := f(lo, min(lo+size, n)); err != nil {
			return err
		}
	}
	return nil
}

// strictFloat is a JSON number that refuses null (a plain float would
// silently decode null as 0).
type strictFloat float64

// UnmarshalJSON accepts only a JSON number.
func (f *strictFloat) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("not a number: " + httpx.Snippet(string(b), 40))
	}
	*f = strictFloat(v)
	return nil
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// badOption returns a configuration error naming the capability.
func (e *endpoint) badOption(format string, args ...any) error {
	return fmt.Errorf("tei %s: %s", e.http.Capability(), fmt.Sprintf(format, args...))
}

// errf is fmt.Errorf without wrapping, for validation messages.
func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// snippet is a short excerpt of a JSON answer for error messages.
func snippet(raw []byte) string { return httpx.Snippet(string(raw), 120) }

// firstByte returns the first non-space byte of raw, or 0.
func firstByte(raw []byte) byte {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b
	}
	return 0
}
