package academic

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestSpacerReservesSlots(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	var slept []time.Duration
	s := NewSpacer(time.Second)
	s.now = func() time.Time { return now }
	s.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	for range 3 {
		if err := s.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// First at once, then one and two intervals later (the clock stood still).
	if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
		t.Fatalf("slept %v, want [1s 2s]", slept)
	}
	now = now.Add(10 * time.Second) // long idle: no wait
	slept = nil
	if err := s.Wait(context.Background()); err != nil || len(slept) != 0 {
		t.Fatalf("after idle: err %v, slept %v", err, slept)
	}
}

func TestSpacedTransportSpacesRequests(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var starts []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	const gap = 40 * time.Millisecond
	c := NewClient(ClientOptions{API: "testapi", MinInterval: gap})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.GetJSON(context.Background(), srv.URL, nil, testBound, &struct{}{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(starts) != 4 {
		t.Fatalf("%d requests", len(starts))
	}
	if d := starts[3].Sub(starts[0]); d < 3*gap-5*time.Millisecond {
		t.Fatalf("4 requests spread over %s, want ≥ %s", d, 3*gap)
	}
}

func TestSpacerHonoursContext(t *testing.T) {
	t.Parallel()
	s := NewSpacer(time.Hour)
	if err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("waited %s", d)
	}
	var nilSpacer *Spacer
	if err := nilSpacer.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}
