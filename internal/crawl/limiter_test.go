package crawl

import (
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
		if _, at := l.reserve("a.example", t0); !at.Equal(t0.Add(time.Duration(i) * delay)) {
			t.Errorf("request %d to a.example gets %s, want %s", i, at.Sub(t0), time.Duration(i)*delay)
		}
	}
	if _, at := l.reserve("b.example", t0); !at.Equal(t0) {
		t.Errorf("b.example waits %s behind a.example's queue", at.Sub(t0))
	}
	later := t0.Add(time.Second)
	if _, at := l.reserve("a.example", later); !at.Equal(later) {
		t.Errorf("a.example idle since its last slot waits %s", at.Sub(later))
	}
}
