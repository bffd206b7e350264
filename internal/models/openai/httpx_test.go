package openaibackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// The resilience contract through the real httpx.Client: the package's
// requests are replayable (retries resend the same body), failures keep
// their sentinels through go-openai and the package, and Relevance never
// hides a transport failure behind its neutral fallback.

// resilient returns an httpx.Client with fast backoff for tests.
func resilient(capability string, retries int, m *metrics.Metrics) *httpx.Client {
	return resilientWithin(capability, retries, m, 5*time.Second)
}

// resilientWithin is resilient with another timeout per attempt, for tests
// that measure what a large answer costs, not how fast it comes.
func resilientWithin(capability string, retries int, m *metrics.Metrics, timeout time.Duration) *httpx.Client {
	return httpx.New(httpx.Options{
		Backend: "openai", Capability: capability, Timeout: timeout, MaxRetries: retries,
		BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxConcurrency: 4,
		BreakerFailures: 50, BreakerCooldown: time.Minute, Observer: m,
	})
}

// bodies records request bodies.
type bodies struct {
	mu  sync.Mutex
	all [][]byte
}

func (b *bodies) add(p []byte) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.all = append(b.all, p)
	return len(b.all)
}

func (b *bodies) get() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.all...)
}

// sameBodies fails unless every recorded body equals the first.
func sameBodies(t *testing.T, got [][]byte, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d requests, want %d", len(got), n)
	}
	for i := 1; i < len(got); i++ {
		if !bytes.Equal(got[i], got[0]) {
			t.Errorf("retry %d sent another body:\n%s\nfirst:\n%s", i, got[i], got[0])
		}
	}
}

func TestHTTPXChat429RetryAfterThenSuccess(t *testing.T) {
	t.Parallel()
	var seen bodies
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		if seen.add(c.Body) == 1 {
			w.Header().Set("Retry-After", "1")
			apiError(w, http.StatusTooManyRequests, "Rate limit reached for requests")
			return
		}
		answer(w, claimsContent(claimJSON{"The sky is blue.", "The sky is blue.", 0.8}))
	})
	m := metrics.New()
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, HTTP: resilient("llm", 3, m), Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.ExtractClaims(context.Background(), models.ClaimRequest{Text: "The sky is blue.", MaxClaims: 5})
	if err != nil || len(got) != 1 {
		t.Fatalf("ExtractClaims = %+v, %v; want one claim after the retry", got, err)
	}
	sameBodies(t, seen.get(), 2)
	llmLabels := map[string]string{"backend": "openai", "capability": "llm"}
	for labels, want := range map[string]float64{"ok": 1, "error": 1} {
		if v := metricValue(t, m, "evidencefleet_model_requests_total", map[string]string{"backend": "openai", "capability": "llm", "outcome": labels}); v != want {
			t.Errorf("model_requests_total{outcome=%s} %v, want %v", labels, v, want)
		}
	}
	if v := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "llm", "kind": "rate_limited"}); v != 1 {
		t.Errorf("rate_limited errors %v, want 1", v)
	}
	if v := metricValue(t, m, "evidencefleet_model_batch_size", llmLabels); v != 1 {
		t.Errorf("batch observations %v, want 1 (one call, whatever the retries)", v)
	}
}

func TestHTTPXEmbeddings503ThenSuccess(t *testing.T) {
	t.Parallel()
	var seen bodies
	srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
		b, _ := json.Marshal(c.Input)
		if seen.add(b) == 1 {
			w.Header().Set("Retry-After", "0")
			apiError(w, http.StatusServiceUnavailable, "model is loading")
			return
		}
		writeJSON(w, embeddingList(vecsFor(c.Input, 4), nil, 2))
	})
	e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m", Dim: 4, HTTP: resilient("embed", 3, nil)})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []string{"a text", "another"})
	if err != nil || len(vs) != 2 {
		t.Fatalf("Embed = %v, %v; want 2 vectors after the retry", vs, err)
	}
	sameBodies(t, seen.get(), 2)
}

func TestHTTPX500sExhaustRetries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		call func(o Options) error
	}{
		{"extract", func(o Options) error {
			l, err := NewLLM(o)
			if err != nil {
				return err
			}
			_, err = l.ExtractClaims(context.Background(), models.ClaimRequest{Text: "t", MaxClaims: 1})
			return err
		}},
		{"relevance never falls back on a server failure", func(o Options) error {
			l, err := NewLLM(o)
			if err != nil {
				return err
			}
			score, err := l.Relevance(context.Background(), "q", "t")
			if err == nil {
				t.Errorf("Relevance = %v, nil after 500s", score)
			}
			return err
		}},
		{"nli", func(o Options) error {
			n, err := NewNLI(o)
			if err != nil {
				return err
			}
			_, err = n.Judge(context.Background(), []models.Pair{{Premise: "p", Hypothesis: "h"}})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen bodies
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
				seen.add(c.Body)
				apiError(w, http.StatusInternalServerError, "CUDA out of memory")
			})
			err := tc.call(Options{BaseURL: srv.URL + "/v1", Model: llmModel, HTTP: resilient("llm", 2, nil)})
			var he *httpx.Error
			if !errors.Is(err, remoteerr.ErrUnavailable) || !errors.As(err, &he) || he.Attempts != 3 || !strings.Contains(err.Error(), "CUDA out of memory") {
				t.Errorf("err %v, want ErrUnavailable from httpx after 3 attempts with the server's message", err)
			}
			sameBodies(t, seen.get(), 3)
		})
	}
}

func TestHTTPXAttemptTimeoutThenSuccess(t *testing.T) {
	t.Parallel()
	var seen bodies
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		if seen.add(c.Body) == 1 {
			<-c.Ctx.Done() // hang until httpx gives up on the attempt
			return
		}
		answer(w, `{"score": 6}`)
	})
	hc := httpx.New(httpx.Options{Backend: "openai", Capability: "llm", Timeout: 100 * time.Millisecond, MaxRetries: 2,
		BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, HTTP: hc})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.Relevance(context.Background(), "q", "t"); err != nil || got != 6 {
		t.Errorf("Relevance = %v, %v; want 6 after a timed-out attempt", got, err)
	}
	sameBodies(t, seen.get(), 2)
}

func TestHTTPXRejectedIsNotRetried(t *testing.T) {
	t.Parallel()
	var seen bodies
	srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
		seen.add(nil)
		apiError(w, http.StatusBadRequest, "This model's maximum context length is 8192 tokens")
	})
	e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m", HTTP: resilient("embed", 3, nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"long"})
	if !errors.Is(err, remoteerr.ErrRejected) || !strings.Contains(err.Error(), "maximum context length") {
		t.Errorf("err %v, want ErrRejected with the server's message", err)
	}
	if n := len(seen.get()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry of a 400)", n)
	}
}

func TestHTTPXBreakerOpensAndFailsFast(t *testing.T) {
	t.Parallel()
	var seen bodies
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		seen.add(nil)
		apiError(w, http.StatusBadGateway, "upstream down")
	})
	hc := httpx.New(httpx.Options{Backend: "openai", Capability: "nli", MaxRetries: -1, BreakerFailures: 2, BreakerCooldown: time.Hour})
	n, err := NewNLI(Options{BaseURL: srv.URL + "/v1", Model: llmModel, HTTP: hc, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := n.Judge(context.Background(), []models.Pair{{Premise: "p", Hypothesis: "h"}}); !errors.Is(err, remoteerr.ErrUnavailable) {
			t.Fatalf("err %v, want ErrUnavailable", err)
		}
	}
	_, err = n.Judge(context.Background(), []models.Pair{{Premise: "p", Hypothesis: "h"}})
	if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "circuit open") {
		t.Errorf("err %v, want ErrUnavailable (circuit open)", err)
	}
	if got := len(seen.get()); got != 2 {
		t.Errorf("%d requests reached the server, want 2 (the open breaker fails fast)", got)
	}
}

func TestHTTPXCallerCancelIsNotUnavailable(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		close(started)
		<-c.Ctx.Done()
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, HTTP: resilient("llm", 3, nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	score, err := l.Relevance(ctx, "q", "t")
	if !errors.Is(err, context.Canceled) || errors.Is(err, remoteerr.ErrUnavailable) {
		t.Errorf("Relevance = %v, %v; want context.Canceled, not ErrUnavailable", score, err)
	}
}
