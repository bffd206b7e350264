package academic

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestLimiterRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		interval time.Duration
		want     rate.Limit // 0: no limiter
	}{
		{time.Second, 1},             // Semantic Scholar without a key
		{100 * time.Millisecond, 10}, // Semantic Scholar with a key, OpenAlex
		{3 * time.Second, rate.Every(3 * time.Second)},
		{0, 0},
		{-time.Second, 0},
	}
	for _, tt := range tests {
		c := NewClient(ClientOptions{API: "testapi", MinInterval: tt.interval})
		if c.MinInterval() != tt.interval {
			t.Errorf("%s: MinInterval %s", tt.interval, c.MinInterval())
		}
		if tt.want == 0 {
			if c.limiter != nil {
				t.Errorf("%s: limiter %v, want none", tt.interval, c.limiter.Limit())
			}
			continue
		}
		if c.limiter == nil || c.limiter.Limit() != tt.want || c.limiter.Burst() != 1 {
			t.Errorf("%s: limiter %+v, want %v requests/s with a burst of 1", tt.interval, c.limiter, tt.want)
		}
	}
}

// TestLimiterSpacesStarts reserves turns at synthetic times: the clock never
// moves unless the test moves it.
func TestLimiterSpacesStarts(t *testing.T) {
	t.Parallel()
	lim := newLimiter(time.Second)
	now := time.Unix(1000, 0)
	// First at once, then one and two intervals later (the clock stood still).
	for i, want := range []time.Duration{0, time.Second, 2 * time.Second} {
		if d := lim.ReserveN(now, 1).DelayFrom(now); d != want {
			t.Fatalf("reservation %d waits %s, want %s", i, d, want)
		}
	}
	// After a long idle spell one request goes at once, the next waits again:
	// idle time does not pile up into a burst.
	now = now.Add(10 * time.Second)
	if !lim.AllowN(now, 1) || lim.AllowN(now, 1) || lim.AllowN(now.Add(999*time.Millisecond), 1) {
		t.Fatal("after idling: want one request at once and the next only a second later")
	}
	if !lim.AllowN(now.Add(time.Second), 1) {
		t.Fatal("a second after the last request: refused")
	}
}

func TestWaitTurnHonoursContext(t *testing.T) {
	t.Parallel()
	lim := newLimiter(time.Hour)
	if err := waitTurn(context.Background(), lim); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := waitTurn(ctx, lim); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
	// rate.Limiter refuses a wait past the deadline with its own error at
	// once; waitTurn reports the context's error instead.
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer dcancel()
	if err := waitTurn(dctx, lim); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: err = %v, want DeadlineExceeded", err)
	}
	if err := waitTurn(context.Background(), nil); err != nil {
		t.Fatalf("no limiter: %v", err)
	}
}

// waitQueued returns once n requests hold a reservation at lim and wait for
// it (each one takes a token; a 1-hour interval refills none meanwhile). A
// request reserves only a turn that comes before its context's deadline.
func waitQueued(lim *rate.Limiter, n int) {
	for lim.Tokens() > 0.5-float64(n) {
		time.Sleep(time.Millisecond)
	}
}

// TestClientWaitsItsTurn: a request, and a retry, sent before the interval
// has passed wait at the limiter and never reach the server.
func TestClientWaitsItsTurn(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 && r.URL.Path == "/retry" {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	for _, tt := range []struct{ name, first, second string }{
		{"next request", "/ok", "/ok"},
		{"retry", "", "/retry"},
	} {
		hits.Store(0)
		h := fastHTTP()
		h.Timeout = 2 * time.Hour // the attempt's deadline lies past its turn
		c := NewClient(ClientOptions{API: "testapi", HTTP: h, MinInterval: time.Hour})
		if tt.first != "" {
			if err := c.GetJSON(context.Background(), srv.URL+tt.first, nil, testBound, &struct{}{}); err != nil {
				t.Fatalf("%s: first request: %v", tt.name, err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.GetJSON(ctx, srv.URL+tt.second, nil, testBound, &struct{}{}) }()
		waitQueued(c.limiter, 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want context.Canceled", tt.name, err)
		}
		if n := hits.Load(); n != 1 {
			t.Fatalf("%s: the server saw %d requests, want 1", tt.name, n)
		}
	}
}
