package crawl

import (
	"context"
	"sync"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/clock"
)

// domainLimiter spaces the starts of requests to one domain by at least
// delay, across every goroutine of the process that shares it. A caller
// reserves the next free slot under a mutex (first come, first served) and
// sleeps until it; on waking it also checks the actual start of the previous
// request, so timer jitter can never bring two starts closer than delay.
type domainLimiter struct {
	delay time.Duration
	mu    sync.Mutex
	m     map[string]*domainSlot
	// released, when set (tests), is told each release with the time the
	// limiter compared against the previous request's start.
	released func(domain string, at time.Time)
}

type domainSlot struct {
	next time.Time // first free reservation
	last time.Time // actual start of the latest request
}

func newDomainLimiter(delay time.Duration) *domainLimiter {
	return &domainLimiter{delay: delay, m: make(map[string]*domainSlot)}
}

// wait blocks until a request to domain may start, or ctx ends.
func (l *domainLimiter) wait(ctx context.Context, domain string) error {
	if l == nil || l.delay <= 0 {
		return ctx.Err()
	}
	s, at := l.reserve(domain, time.Now())
	reservedEnd := at.Add(l.delay)

	for {
		if err := clock.Sleep(ctx, time.Until(at)); err != nil {
			l.mu.Lock()
			if s.next.Equal(reservedEnd) { // nobody queued behind: give the slot back
				s.next = at
			}
			l.mu.Unlock()
			return err
		}
		l.mu.Lock()
		now := time.Now()
		if earliest := s.last.Add(l.delay); now.Before(earliest) {
			at = earliest
			l.mu.Unlock()
			continue
		}
		s.last = now
		l.mu.Unlock()
		if l.released != nil {
			l.released(domain, now)
		}
		return nil
	}
}

// reserve takes the next free slot of domain at now: the slot's start and
// the domain's state. Each domain has its own queue.
func (l *domainLimiter) reserve(domain string, now time.Time) (*domainSlot, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.m[domain]
	if s == nil {
		if len(l.m) > 4096 {
			l.pruneLocked(now)
		}
		s = &domainSlot{}
		l.m[domain] = s
	}
	at := s.next
	if at.Before(now) {
		at = now
	}
	s.next = at.Add(l.delay)
	return s, at
}

// pruneLocked forgets domains with no pending reservation and no recent request.
func (l *domainLimiter) pruneLocked(now time.Time) {
	for d, s := range l.m {
		if s.next.Before(now) && s.last.Add(l.delay).Before(now) {
			delete(l.m, d)
		}
	}
}

// sent records that a request to domain went on the wire at t. Spacing is
// measured from the later of release and send, so client-side delays
// between the two (connection set-up, scheduling) cannot bring two requests
// closer together at the server than delay.
func (l *domainLimiter) sent(domain string, t time.Time) {
	if l == nil || l.delay <= 0 {
		return
	}
	l.mu.Lock()
	if s := l.m[domain]; s != nil && t.After(s.last) {
		s.last = t
	}
	l.mu.Unlock()
}
