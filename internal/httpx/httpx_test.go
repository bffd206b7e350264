package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// waitLog is the retry policy's wait hook in tests: it records each planned
// wait and has the policy sleep none of it.
type waitLog struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (w *waitLog) record(d time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sleeps = append(w.sleeps, d)
	return 0
}

func (w *waitLog) waits() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.sleeps...)
}

// newTestClient returns a client whose retries record their planned waits
// and sleep none (unless o sets its own hook), with jitter fixed at 0.5 and
// a fresh recorder.
func newTestClient(o Options) (*Client, *waitLog, *recorder) {
	clk := &waitLog{}
	m := &recorder{}
	if o.Backend == "" {
		o.Backend = "tei"
	}
	if o.Capability == "" {
		o.Capability = "embed"
	}
	o.Observer = m
	if o.waitFor == nil {
		o.waitFor = clk.record
	}
	o.rand = func() float64 { return 0.5 }
	return New(o), clk, m
}

func get(t *testing.T, c *Client, ctx context.Context, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if resp != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	return resp, err
}

// scripted serves the given statuses in order (the last one repeats), each
// with its headers and body, and counts hits.
type step struct {
	status int
	header map[string]string
	body   string
}

func scripted(steps ...step) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		if n >= len(steps) {
			n = len(steps) - 1
		}
		s := steps[n]
		for k, v := range s.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, s.body)
	}))
	return srv, &hits
}

func TestRetryAfterAndBackoff(t *testing.T) {
	base := 100 * time.Millisecond
	tests := []struct {
		name     string
		first    step
		minWait  time.Duration
		maxWait  time.Duration
		wantHits int32
		wantErr  error
	}{
		{"429 delta-seconds", step{429, map[string]string{"Retry-After": "3"}, `{"error":"busy","error_type":"overloaded"}`}, 3 * time.Second, 3 * time.Second, 2, nil},
		{"503 HTTP-date", step{503, map[string]string{"Retry-After": time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)}, "down"}, 8 * time.Second, 10 * time.Second, 2, nil},
		{"429 date in the past", step{429, map[string]string{"Retry-After": "Mon, 02 Jan 2006 15:04:05 GMT"}, ""}, 0, 0, 2, nil},
		{"429 without Retry-After uses backoff", step{429, nil, ""}, base / 2, base / 2, 2, nil},
		{"500 ignores Retry-After", step{500, map[string]string{"Retry-After": "7"}, ""}, base / 2, base / 2, 2, nil},
		{"Retry-After over the cap gives up at once", step{429, map[string]string{"Retry-After": "120"}, "slow down"}, -1, -1, 1, remoteerr.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scripted(tt.first, step{200, nil, "ok"})
			defer srv.Close()
			c, clk, m := newTestClient(Options{BaseBackoff: base, MaxRetryAfter: 60 * time.Second})
			_, err := get(t, c, context.Background(), srv.URL+"/embed")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := hits.Load(); got != tt.wantHits {
				t.Fatalf("server hits = %d, want %d", got, tt.wantHits)
			}
			waits := clk.waits()
			if tt.minWait < 0 {
				if len(waits) != 0 {
					t.Fatalf("waited %v, want no wait", waits)
				}
				if !strings.Contains(err.Error(), "exceeds") || !strings.Contains(err.Error(), "slow down") {
					t.Fatalf("error %q should say the Retry-After exceeds the cap and quote the body", err)
				}
				return
			}
			if len(waits) != 1 || waits[0] < tt.minWait || waits[0] > tt.maxWait {
				t.Fatalf("waits = %v, want one in [%v, %v]", waits, tt.minWait, tt.maxWait)
			}
			kind := map[int]string{429: "rate_limited", 500: "server_error", 503: "server_error"}[tt.first.status]
			if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": kind}); got != 1 {
				t.Fatalf("model_errors{kind=%s} = %v, want 1", kind, got)
			}
			if got := counter(t, m, "evidencefleet_model_requests_total", map[string]string{"outcome": "ok"}); got != 1 {
				t.Fatalf("model_requests{ok} = %v, want 1", got)
			}
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	for _, status := range []int{408, 424, 500, 502, 503, 504} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv, hits := scripted(step{status, nil, `{"error":"model overloaded","error_type":"overloaded"}`})
			defer srv.Close()
			base := 100 * time.Millisecond
			c, clk, m := newTestClient(Options{MaxRetries: 3, BaseBackoff: base, MaxBackoff: 300 * time.Millisecond, BreakerFailures: 100})
			_, err := get(t, c, context.Background(), srv.URL+"/predict")
			if !errors.Is(err, remoteerr.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			if hits.Load() != 4 {
				t.Fatalf("attempts = %d, want 4", hits.Load())
			}
			want := []time.Duration{base / 2, base, 150 * time.Millisecond} // 0.5·min(max, base·2ⁿ)
			if got := clk.waits(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("backoff waits = %v, want %v", got, want)
			}
			var he *Error
			if !errors.As(err, &he) || he.Status != status || he.Attempts != 4 || he.Path != "/predict" {
				t.Fatalf("error = %#v", he)
			}
			for _, s := range []string{"tei", "embed", "/predict", strconv.Itoa(status), "model overloaded (overloaded)", "after 4 attempts"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if got := counter(t, m, "evidencefleet_model_requests_total", map[string]string{"backend": "tei", "capability": "embed", "outcome": "error"}); got != 4 {
				t.Fatalf("model_requests{error} = %v, want 4", got)
			}
		})
	}
}

func TestNonRetryableStatuses(t *testing.T) {
	tests := []struct {
		name, body, wantMsg string
		status              int
		want                error
		kind                string
	}{
		{"TEI 400", `{"error":"Input validation error: inputs cannot be empty","error_type":"Validation"}`, "Input validation error: inputs cannot be empty (Validation)", 400, remoteerr.ErrRejected, "rejected"},
		{"TEI 413", `{"error":"batch size 64 > maximum allowed batch size 32","error_type":"Validation"}`, "batch size 64 > maximum allowed batch size 32", 413, remoteerr.ErrRejected, "rejected"},
		{"OpenAI 401", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key provided (invalid_request_error)", 401, remoteerr.ErrRejected, "rejected"},
		{"vLLM 400", `{"object":"error","message":"maximum context length is 512","type":"BadRequestError","code":400}`, "maximum context length is 512", 400, remoteerr.ErrRejected, "rejected"},
		{"FastAPI 422", `{"detail":"field required"}`, "field required", 422, remoteerr.ErrRejected, "rejected"},
		{"plain 404", "404 page not found", "404 page not found", 404, remoteerr.ErrRejected, "rejected"},
		{"long body cut", strings.Repeat("é", 500), "é", 400, remoteerr.ErrRejected, "rejected"},
		{"501 is not retried", "not implemented", "not implemented", 501, remoteerr.ErrUnavailable, "server_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scripted(step{tt.status, nil, tt.body})
			defer srv.Close()
			c, clk, m := newTestClient(Options{})
			_, err := get(t, c, context.Background(), srv.URL+"/x")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if hits.Load() != 1 || len(clk.waits()) != 0 {
				t.Fatalf("hits %d, waits %v: want one attempt and no wait", hits.Load(), clk.waits())
			}
			var he *Error
			if !errors.As(err, &he) || !strings.Contains(he.Message, tt.wantMsg) || len(he.Message) > 200 || he.Status != tt.status {
				t.Fatalf("error %#v: want status %d and message containing %q within 200 bytes", he, tt.status, tt.wantMsg)
			}
			if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": tt.kind}); got != 1 {
				t.Fatalf("model_errors{%s} = %v, want 1", tt.kind, got)
			}
		})
	}
}

// blockingServer blocks every request until its context ends or release is
// closed, and reports each arrival.
func blockingServer() (srv *httptest.Server, arrived chan struct{}, release chan struct{}) {
	arrived = make(chan struct{}, 100)
	release = make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
			_, _ = io.WriteString(w, `{}`)
		}
	}))
	return srv, arrived, release
}

func TestPerAttemptTimeout(t *testing.T) {
	srv, arrived, release := blockingServer()
	defer srv.Close()
	defer close(release)
	c, clk, m := newTestClient(Options{Timeout: 20 * time.Millisecond, MaxRetries: 2, BreakerFailures: 100})
	_, err := get(t, c, context.Background(), srv.URL+"/embed")
	if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("err = %v, want ErrUnavailable naming the timeout", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v must not look like the caller's deadline", err)
	}
	if len(arrived) != 3 || len(clk.waits()) != 2 {
		t.Fatalf("attempts %d, waits %v: want 3 attempts and 2 waits", len(arrived), clk.waits())
	}
	if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "timeout"}); got != 3 {
		t.Fatalf("model_errors{timeout} = %v, want 3", got)
	}
}

func TestCallerCancel(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		srv, arrived, release := blockingServer()
		defer srv.Close()
		defer close(release)
		c, _, m := newTestClient(Options{BreakerFailures: 1})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := get(t, c, ctx, srv.URL+"/embed")
		if !errors.Is(err, context.Canceled) || errors.Is(err, remoteerr.ErrUnavailable) {
			t.Fatalf("err = %v, want context.Canceled and not ErrUnavailable", err)
		}
		var he *Error
		if !errors.As(err, &he) || he.Attempts != 1 {
			t.Fatalf("error %#v: want one attempt recorded", he)
		}
		if c.Breaker() != Closed {
			t.Fatalf("breaker %v after a cancelled request, want closed", c.Breaker())
		}
		if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "canceled"}); got != 1 {
			t.Fatalf("model_errors{canceled} = %v, want 1", got)
		}
	})
	t.Run("while waiting to retry", func(t *testing.T) {
		srv, hits := scripted(step{503, map[string]string{"Retry-After": "30"}, ""}, step{200, nil, "{}"})
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		var waited time.Duration
		c, _, m := newTestClient(Options{waitFor: func(d time.Duration) time.Duration {
			waited = d
			cancel()
			return d // the retry policy's wait ends with the context
		}})
		_, err := get(t, c, ctx, srv.URL+"/embed")
		if !errors.Is(err, context.Canceled) || errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "waiting to retry") {
			t.Fatalf("err = %v, want context.Canceled while waiting to retry", err)
		}
		if hits.Load() != 1 || waited != 30*time.Second {
			t.Fatalf("hits %d, waited %v: want 1 hit and a 30s wait", hits.Load(), waited)
		}
		if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "canceled"}); got != 1 {
			t.Fatalf("model_errors{canceled} = %v, want 1", got)
		}
	})
	t.Run("deadline before the next retry", func(t *testing.T) {
		srv, hits := scripted(step{503, map[string]string{"Retry-After": "30"}, ""}, step{200, nil, "{}"})
		defer srv.Close()
		c, clk, _ := newTestClient(Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := get(t, c, ctx, srv.URL+"/embed")
		if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "deadline") {
			t.Fatalf("err = %v, want ErrUnavailable naming the deadline", err)
		}
		if hits.Load() != 1 || len(clk.waits()) != 0 {
			t.Fatalf("hits %d, waits %v: want 1 hit and no wait", hits.Load(), clk.waits())
		}
	})
	t.Run("waiting for a concurrency slot", func(t *testing.T) {
		srv, arrived, release := blockingServer()
		defer srv.Close()
		c, _, _ := newTestClient(Options{MaxConcurrency: 1})
		done := make(chan error, 1)
		go func() { _, err := get(t, c, context.Background(), srv.URL+"/a"); done <- err }()
		<-arrived
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := get(t, c, ctx, srv.URL+"/b")
		var he *Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &he) || he.Attempts != 0 {
			t.Fatalf("err = %v, want context.Canceled with no attempt", err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("first request: %v", err)
		}
		if len(arrived) != 0 {
			t.Fatalf("the cancelled request reached the server")
		}
	})
}

func TestConnectionErrorRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, clk, m := newTestClient(Options{MaxRetries: 2, BreakerFailures: 100})
	_, err := get(t, c, context.Background(), url+"/embed")
	if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "connection") {
		t.Fatalf("err = %v, want ErrUnavailable naming the connection", err)
	}
	if len(clk.waits()) != 2 {
		t.Fatalf("waits %v, want 2", clk.waits())
	}
	if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "connection"}); got != 3 {
		t.Fatalf("model_errors{connection} = %v, want 3", got)
	}
}

// TestBreaker: consecutive failed attempts open the breaker, which then
// fails fast naming the rest of its cooldown; after the cooldown (ended here
// by the breaker's own HalfOpen, the transition its clock makes) a failed
// probe opens it again and a good one closes it.
func TestBreaker(t *testing.T) {
	var status atomic.Int32
	status.Store(500)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	c, _, m := newTestClient(Options{MaxRetries: -1, BreakerFailures: 3, BreakerCooldown: time.Hour})

	for i := 0; i < 3; i++ {
		if c.Breaker() != Closed {
			t.Fatalf("breaker %v after %d failures, want closed", c.Breaker(), i)
		}
		if _, err := get(t, c, context.Background(), srv.URL); !errors.Is(err, remoteerr.ErrUnavailable) {
			t.Fatalf("err = %v", err)
		}
	}
	if c.Breaker() != Open {
		t.Fatalf("breaker %v after 3 failures, want open", c.Breaker())
	}
	status.Store(200)
	_, err := get(t, c, context.Background(), srv.URL)
	if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "circuit open") || hits.Load() != 3 {
		t.Fatalf("open breaker: err %v, hits %d; want a fast circuit-open failure and no new hit", err, hits.Load())
	}
	if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "circuit_open"}); got != 1 {
		t.Fatalf("model_errors{circuit_open} = %v, want 1", got)
	}
	// The error tells a waiting job when to ask again: the rest of the cooldown.
	var he *Error
	if !errors.As(err, &he) || he.RetryAfter() <= 0 || he.RetryAfter() > time.Hour {
		t.Fatalf("open breaker: %v, want RetryAfter within the 1h cooldown", err)
	}

	// half-open: a failed probe opens it again
	c.breaker.HalfOpen()
	if c.Breaker() != HalfOpen {
		t.Fatalf("breaker %v after the cooldown, want half-open", c.Breaker())
	}
	status.Store(503)
	if _, err := get(t, c, context.Background(), srv.URL); !errors.Is(err, remoteerr.ErrUnavailable) || hits.Load() != 4 {
		t.Fatalf("probe: err %v, hits %d", err, hits.Load())
	}
	if c.Breaker() != Open {
		t.Fatalf("breaker %v after a failed probe, want open", c.Breaker())
	}
	// half-open again: a successful probe closes it
	c.breaker.HalfOpen()
	status.Store(200)
	if _, err := get(t, c, context.Background(), srv.URL); err != nil || hits.Load() != 5 {
		t.Fatalf("probe: err %v, hits %d", err, hits.Load())
	}
	if c.Breaker() != Closed {
		t.Fatalf("breaker %v after a good probe, want closed", c.Breaker())
	}
}

// TestBreakerCooldownPasses: an open breaker reports half-open once its
// (short) cooldown has passed on the wall clock, and lets a probe through.
func TestBreakerCooldownPasses(t *testing.T) {
	srv, hits := scripted(step{503, nil, ""}, step{200, nil, "{}"})
	defer srv.Close()
	c, _, _ := newTestClient(Options{MaxRetries: -1, BreakerFailures: 1, BreakerCooldown: 5 * time.Millisecond})
	if _, err := get(t, c, context.Background(), srv.URL); !errors.Is(err, remoteerr.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	for c.Breaker() != HalfOpen { // the test's own deadline bounds the wait
		time.Sleep(time.Millisecond)
	}
	if _, err := get(t, c, context.Background(), srv.URL); err != nil || hits.Load() != 2 {
		t.Fatalf("probe: err %v, hits %d", err, hits.Load())
	}
	if c.Breaker() != Closed {
		t.Fatalf("breaker %v after a good probe, want closed", c.Breaker())
	}
}

func TestBreakerOneProbeAtATime(t *testing.T) {
	srv, arrived, release := blockingServer()
	defer srv.Close()
	c, _, _ := newTestClient(Options{MaxRetries: -1, BreakerFailures: 1, BreakerCooldown: time.Hour, Timeout: time.Minute})
	c.breaker.RecordFailure() // one failure opens it
	if c.Breaker() != Open {
		t.Fatalf("breaker %v, want open", c.Breaker())
	}
	c.breaker.HalfOpen()
	done := make(chan error, 1)
	go func() { _, err := get(t, c, context.Background(), srv.URL); done <- err }()
	<-arrived // the probe is in flight
	_, err := get(t, c, context.Background(), srv.URL)
	if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "circuit open") {
		t.Fatalf("second request during the probe: %v, want circuit open", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("probe: %v", err)
	}
	if c.Breaker() != Closed || len(arrived) != 0 {
		t.Fatalf("breaker %v, extra arrivals %d", c.Breaker(), len(arrived))
	}
}

// TestBreakerCancelledProbe: a probe whose caller gives up proves nothing,
// and failsafe-go's breaker takes its permit back only with an outcome: it
// counts as a failure, so the breaker opens again instead of closing.
func TestBreakerCancelledProbe(t *testing.T) {
	srv, arrived, release := blockingServer()
	defer srv.Close()
	defer close(release)
	c, _, _ := newTestClient(Options{MaxRetries: -1, BreakerFailures: 1, BreakerCooldown: time.Hour})
	c.breaker.RecordFailure()
	c.breaker.HalfOpen()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	if _, err := get(t, c, ctx, srv.URL); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if c.Breaker() != Open {
		t.Fatalf("breaker %v after a cancelled probe, want open", c.Breaker())
	}
}

func TestMaxConcurrency(t *testing.T) {
	const limit, requests = 2, 8
	var inflight, peak atomic.Int32
	arrived := make(chan struct{}, requests)
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		arrived <- struct{}{}
		<-gate
		inflight.Add(-1)
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	c, _, _ := newTestClient(Options{MaxConcurrency: limit})
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := 0; i < requests; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := get(t, c, context.Background(), srv.URL)
			errs <- err
		}()
	}
	for i := 0; i < limit; i++ {
		<-arrived
	}
	// Give a request beyond the limit the chance to reach the server (the
	// server is on loopback; a broken bound lets one in within microseconds).
	select {
	case <-arrived:
		t.Errorf("request %d reached the server while %d were in flight", limit+1, limit)
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p != limit {
		t.Fatalf("peak in-flight requests = %d, want %d", p, limit)
	}
}

func TestBodyReplayedOnRetry(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	payload := `{"inputs":["a","b"]}`

	t.Run("replayable", func(t *testing.T) {
		bodies = nil
		c, _, _ := newTestClient(Options{})
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(payload))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if fmt.Sprint(bodies) != fmt.Sprint([]string{payload, payload, payload}) {
			t.Fatalf("server saw %q", bodies)
		}
	})
	t.Run("not replayable", func(t *testing.T) {
		bodies = nil
		c, _, _ := newTestClient(Options{})
		req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader(payload)))
		if req.GetBody != nil {
			t.Fatal("test setup: GetBody should be nil")
		}
		_, err := c.Do(req)
		if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "not replayable") {
			t.Fatalf("err = %v", err)
		}
		if len(bodies) != 1 || bodies[0] != payload {
			t.Fatalf("server saw %q, want one attempt", bodies)
		}
	})
}

func TestPostJSON(t *testing.T) {
	type out struct {
		Vectors [][]float32 `json:"vectors"`
	}
	tests := []struct {
		name    string
		status  int
		body    string
		want    error
		wantMsg string
	}{
		{"ok", 200, `{"vectors":[[0.6,0.8]]}`, nil, ""},
		{"not JSON", 200, `<html>gateway</html>`, remoteerr.ErrBadResponse, "<html>gateway</html>"},
		{"wrong shape", 200, `{"vectors":[["x"]]}`, remoteerr.ErrBadResponse, "cannot unmarshal"},
		{"trailing garbage", 200, `{"vectors":[]} {}`, remoteerr.ErrBadResponse, "decoding"},
		{"empty", 200, ``, remoteerr.ErrBadResponse, "decoding"},
		{"rejected", 400, `{"error":"bad input","error_type":"Validation"}`, remoteerr.ErrRejected, "bad input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotReq struct {
				method, path, ctype, accept, auth string
				body                              map[string]any
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotReq.method, gotReq.path = r.Method, r.URL.Path
				gotReq.ctype, gotReq.accept, gotReq.auth = r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("Authorization")
				_ = json.NewDecoder(r.Body).Decode(&gotReq.body)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c, _, m := newTestClient(Options{})
			var o out
			err := c.PostJSON(context.Background(), srv.URL+"/embed", http.Header{"Authorization": {"Bearer k"}},
				map[string]any{"inputs": []string{"a"}}, EmbeddingsBound(1, 2), &o, 3)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %q does not mention %q", err, tt.wantMsg)
			}
			if err != nil && !strings.Contains(err.Error(), "/embed") {
				t.Fatalf("error %q does not name the path", err)
			}
			if gotReq.method != "POST" || gotReq.path != "/embed" || gotReq.ctype != "application/json" ||
				gotReq.accept != "application/json" || gotReq.auth != "Bearer k" || fmt.Sprint(gotReq.body["inputs"]) != "[a]" {
				t.Fatalf("request = %+v", gotReq)
			}
			if tt.want == nil && (len(o.Vectors) != 1 || o.Vectors[0][1] != 0.8) {
				t.Fatalf("decoded %+v", o)
			}
			if got := counter(t, m, "evidencefleet_model_batch_size", map[string]string{"backend": "tei", "capability": "embed"}); got != 1 {
				t.Fatalf("model_batch_size samples = %v, want 1", got)
			}
			wantBad := 0.0
			if errors.Is(tt.want, remoteerr.ErrBadResponse) {
				wantBad = 1
			}
			if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != wantBad {
				t.Fatalf("model_errors{bad_response} = %v, want %v", got, wantBad)
			}
		})
	}
}

func TestPostJSONBodyTooLarge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("["))
		_, _ = w.Write(bytes.Repeat([]byte("0,"), 1<<10)) // 2 KiB
		_, _ = w.Write([]byte("0]"))
	}))
	defer srv.Close()
	c, _, m := newTestClient(Options{})
	var out []int
	err := c.PostJSON(context.Background(), srv.URL, nil, []int{}, Bound{Bytes: 1 << 10, What: "a test"}, &out, 0)
	if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), "answer over 1 KiB for a test") {
		t.Fatalf("err = %v, want ErrBadResponse naming the bound", err)
	}
	if got := counter(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
		t.Fatalf("model_errors{bad_response} = %v, want 1", got)
	}
	// The same answer within its bound is decoded.
	if err := c.PostJSON(context.Background(), srv.URL, nil, []int{}, Bound{Bytes: 2051, What: "a test"}, &out, 0); err != nil || len(out) != 1025 {
		t.Fatalf("within the bound: %d numbers, err %v", len(out), err)
	}
	// An answer declaring a Content-Length over the bound is refused unread.
	declared := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(64<<20))
		block := bytes.Repeat([]byte(" "), 64<<10)
		for range 1024 {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer declared.Close()
	err = c.PostJSON(context.Background(), declared.URL, nil, []int{}, Bound{Bytes: 1 << 10, What: "a test"}, &out, 0)
	if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), "answer over 1 KiB for a test") {
		t.Fatalf("Content-Length 64 MiB: err = %v, want ErrBadResponse naming the bound", err)
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 200, "short"},
		{"abcdef", 5, "ab…"},
		{"ééé", 6, "ééé"},
		{"éééé", 6, "é…"},
		{"a\xffb", 10, "a\uFFFDb"},
	}
	for _, tt := range tests {
		if got := Snippet(tt.in, tt.n); got != tt.want || len(got) > tt.n {
			t.Errorf("Snippet(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"http://tei:8080", "http://tei:8080", true},
		{"https://api.example.com/v1/", "https://api.example.com/v1", true},
		{" http://127.0.0.1:80// ", "http://127.0.0.1:80", true},
		{"tei:8080", "", false},
		{"ftp://tei", "", false},
		{"http://", "", false},
		{"http://tei/?x=1", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := BaseURL(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("BaseURL(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestRedirectToAnotherHostDropsTheKey: an API key sent as a header goes
// along a redirect on the same host, never to another one.
func TestRedirectToAnotherHostDropsTheKey(t *testing.T) {
	t.Parallel()
	keys := make(chan string, 2)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys <- "other:" + r.Header.Get("X-Api-Key")
	}))
	t.Cleanup(other.Close)
	// The same server under another host name: localhost instead of 127.0.0.1.
	otherHost := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/landed", http.StatusFound)
		case "/landed":
			keys <- "same:" + r.Header.Get("X-Api-Key")
		default:
			http.Redirect(w, r, otherHost+"/stolen", http.StatusFound)
		}
	}))
	t.Cleanup(api.Close)
	c, _, _ := newTestClient(Options{})
	for path, want := range map[string]string{"/same": "same:secret", "/away": "other:"} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, api.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", "secret")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_ = resp.Body.Close()
		if got := <-keys; got != want {
			t.Errorf("%s: the redirect target saw %q, want %q", path, got, want)
		}
	}
}

// TestEveryAttemptIsAModelCall checks that each request handed to the
// transport, retries included, counts in the job's cost meter as
// Options.Call says.
func TestEveryAttemptIsAModelCall(t *testing.T) {
	t.Parallel()
	srv, hits := scripted(step{503, nil, `{"error":"busy"}`}, step{503, nil, `{"error":"busy"}`}, step{200, nil, `{"ok":true}`})
	defer srv.Close()
	c, _, _ := newTestClient(Options{MaxRetries: 3, BreakerFailures: 100})
	ctx, meter := cost.WithMeter(context.Background())
	if _, err := get(t, c, ctx, srv.URL+"/embed"); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 3 {
		t.Fatalf("attempts = %d, want 3", hits.Load())
	}
	if got := meter.Counts(); got != (cost.Counts{ModelCalls: 3}) {
		t.Errorf("meter %+v, want 3 model calls", got)
	}
}
