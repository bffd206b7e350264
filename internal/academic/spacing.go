package academic

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/clock"
)

// Spacer keeps a minimum interval between the starts of consecutive
// requests: each Wait reserves the next free slot and sleeps until it. It is
// safe for concurrent use; a nil Spacer or a non-positive interval never
// waits.
type Spacer struct {
	interval time.Duration
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex
	next time.Time // earliest start of the next request
}

// NewSpacer returns a Spacer for interval (≤ 0: no spacing).
func NewSpacer(interval time.Duration) *Spacer {
	return &Spacer{interval: interval, now: time.Now, sleep: clock.Sleep}
}

// Interval returns the configured minimum spacing.
func (s *Spacer) Interval() time.Duration {
	if s == nil {
		return 0
	}
	return s.interval
}

// Wait blocks until the caller may start a request, or ctx ends (then it
// returns ctx's error; the reserved slot is not given back, which only makes
// later requests wait a little longer than needed).
func (s *Spacer) Wait(ctx context.Context) error {
	if s == nil || s.interval <= 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	now := s.now()
	start := s.next
	if start.Before(now) {
		start = now
	}
	s.next = start.Add(s.interval)
	s.mu.Unlock()
	if d := start.Sub(now); d > 0 {
		return s.sleep(ctx, d)
	}
	return nil
}

// spacedTransport makes every request handed to the network, retries
// included, wait for its Spacer slot.
type spacedTransport struct {
	next   http.RoundTripper
	spacer *Spacer
}

// RoundTrip waits for a slot, then sends req.
func (t *spacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.spacer.Wait(req.Context()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // RoundTrip must close the body, even on errors
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// SpacedTransport wraps next (nil: a clone of http.DefaultTransport) so that
// every request it sends waits for s. With a nil s it returns next as is.
func SpacedTransport(next http.RoundTripper, s *Spacer) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport.(*http.Transport).Clone()
	}
	if s == nil || s.interval <= 0 {
		return next
	}
	return &spacedTransport{next: next, spacer: s}
}
