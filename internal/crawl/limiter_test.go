package crawl

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestDomainLimiterQueuesPerDomain: requests to one domain get slots delay
// apart in the order they asked; another domain is not held back by that
// queue, and a domain idle for longer than delay starts at once. Times are
// given, not measured.
func TestDomainLimiterQueuesPerDomain(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	l := newDomainLimiter(delay)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		if _, r := l.reserve("a.example", t0); r.DelayFrom(t0) != time.Duration(i)*delay {
			t.Errorf("request %d to a.example waits %s, want %s", i, r.DelayFrom(t0), time.Duration(i)*delay)
		}
	}
	if _, r := l.reserve("b.example", t0); r.DelayFrom(t0) != 0 {
		t.Errorf("b.example waits %s behind a.example's queue", r.DelayFrom(t0))
	}
	later := t0.Add(time.Second)
	if _, r := l.reserve("a.example", later); r.DelayFrom(later) != 0 {
		t.Errorf("a.example idle since its last slot waits %s", r.DelayFrom(later))
	}
}

// TestDomainLimiterCancelGivesTheSlotBack: a reservation cancelled before its
// time frees its slot for the next request.
func TestDomainLimiterCancelGivesTheSlotBack(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	l := newDomainLimiter(delay)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.reserve("a.example", t0)
	_, r := l.reserve("a.example", t0)
	r.CancelAt(t0)
	if _, r := l.reserve("a.example", t0); r.DelayFrom(t0) != delay {
		t.Errorf("after a cancelled reservation the next waits %s, want %s", r.DelayFrom(t0), delay)
	}
}

// TestDomainLimiterCancelledWait: a wait whose context ends returns its error
// and leaves the domain's queue as if it had never asked.
func TestDomainLimiterCancelledWait(t *testing.T) {
	t.Parallel()
	l := newDomainLimiter(time.Hour)
	first, err := l.wait(context.Background(), "a.example")
	if err != nil {
		t.Fatal(err)
	}
	l.done(first)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.wait(ctx, "a.example"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}
	now := time.Now()
	_, r := l.reserve("a.example", now)
	if d := r.DelayFrom(now); d > time.Hour {
		t.Errorf("the next request waits %s, more than one delay: the cancelled slot was kept", d)
	}
	if s := l.domains["a.example"]; s.held != 1 {
		t.Errorf("held = %d, want 1 (the cancelled wait ended its hold)", s.held)
	}
}

// TestDomainLimiterForgetsIdleDomains: past sweepAt domains, idle ones are
// dropped; a domain with a request under way or a spent token is kept.
func TestDomainLimiterForgetsIdleDomains(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	l := newDomainLimiter(delay)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range sweepMin - 2 {
		s, _ := l.reserve(fmt.Sprintf("d%d.example", i), t0)
		l.done(s)
	}
	l.reserve("busy.example", t0) // not done: a request under way
	s, _ := l.reserve("recent.example", t0.Add(delay))
	l.done(s) // token spent at t0+delay
	l.reserve("new.example", t0.Add(delay))
	if got := len(l.domains); got != 3 {
		t.Fatalf("%d domains kept, want busy, recent and new", got)
	}
	for _, d := range []string{"busy.example", "recent.example", "new.example"} {
		if l.domains[d] == nil {
			t.Errorf("%s was forgotten", d)
		}
	}
	if l.sweepAt != sweepMin {
		t.Errorf("next sweep at %d, want %d", l.sweepAt, sweepMin)
	}
}
