package crawl

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/evidencefleet/evidencefleet/internal/clock"
)

// sweepMin is the number of remembered domains past which idle ones are
// forgotten.
const sweepMin = 4096

// domainLimiter spaces the starts of requests to one domain (ident.HostDomain)
// by at least delay, across every goroutine of the process that shares it.
// Each domain has a golang.org/x/time/rate limiter of rate 1/delay and burst
// 1, made on first use: its reservations are delay apart, first come first
// served, and a wait that ends early cancels its reservation, which gives the
// slot back to the requests queued behind it.
//
// The rate limiter spaces reservations, not the moments requests really
// start, so a released request also waits until delay has passed since the
// previous request's actual start (its release or its send, whichever is
// later): one late wake-up cannot bring the next request closer.
//
// Memory stays bounded over millions of domains: when the map reaches
// sweepAt, domains that are idle (no request between reservation and send,
// the last start over delay ago, a full token) are forgotten, which loses
// nothing, since a new limiter starts with a full token too.
type domainLimiter struct {
	delay time.Duration

	mu      sync.Mutex
	domains map[string]*domainSlot
	sweepAt int // size of domains at which idle ones are next forgotten
	// released, when set (tests), is told each release with the time the
	// limiter compared against the previous request's start.
	released func(domain string, at time.Time)
}

// domainSlot is one domain's limiter and the state guarded by
// domainLimiter.mu.
type domainSlot struct {
	lim  *rate.Limiter
	held int       // requests between their reservation and done
	last time.Time // actual start of the latest request (release or send)
}

func newDomainLimiter(delay time.Duration) *domainLimiter {
	return &domainLimiter{delay: delay, domains: make(map[string]*domainSlot), sweepAt: sweepMin}
}

// wait blocks until a request to domain may start, or ctx ends. The caller
// passes the slot to sent when the request is written and to done when the
// exchange is over (both accept nil, returned when there is no delay).
func (l *domainLimiter) wait(ctx context.Context, domain string) (*domainSlot, error) {
	if l == nil || l.delay <= 0 {
		return nil, ctx.Err()
	}
	s, r := l.reserve(domain, time.Now())
	if err := clock.Sleep(ctx, r.Delay()); err != nil {
		r.Cancel()
		l.done(s)
		return nil, err
	}
	for {
		l.mu.Lock()
		now := time.Now()
		earliest := s.last.Add(l.delay)
		if !now.Before(earliest) {
			s.last = now
			l.mu.Unlock()
			if l.released != nil {
				l.released(domain, now)
			}
			return s, nil
		}
		l.mu.Unlock()
		if err := clock.Sleep(ctx, earliest.Sub(now)); err != nil {
			l.done(s) // the reservation's time has passed: nothing to give back
			return nil, err
		}
	}
}

// reserve holds domain's slot and takes its next reservation at now.
func (l *domainLimiter) reserve(domain string, now time.Time) (*domainSlot, *rate.Reservation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.domains[domain]
	if s == nil {
		if len(l.domains) >= l.sweepAt {
			l.forgetIdleLocked(now)
		}
		s = &domainSlot{lim: rate.NewLimiter(rate.Every(l.delay), 1)}
		l.domains[domain] = s
	}
	s.held++
	return s, s.lim.ReserveN(now, 1)
}

// forgetIdleLocked drops the domains idle at now and sets the next sweep at
// twice the domains kept, so that sweeps cost O(1) per new domain.
func (l *domainLimiter) forgetIdleLocked(now time.Time) {
	for d, s := range l.domains {
		if s.held == 0 && !now.Before(s.last.Add(l.delay)) && s.lim.TokensAt(now) >= 1 {
			delete(l.domains, d)
		}
	}
	l.sweepAt = max(sweepMin, 2*len(l.domains))
}

// sent records that the request of s went on the wire at t. Spacing is
// measured from the later of release and send, so client-side delays
// between the two (connection set-up, scheduling) cannot bring two requests
// closer together at the server than delay.
func (l *domainLimiter) sent(s *domainSlot, t time.Time) {
	if s == nil {
		return
	}
	l.mu.Lock()
	if t.After(s.last) {
		s.last = t
	}
	l.mu.Unlock()
}

// done ends the hold wait took on s's domain, so that it can be forgotten
// once idle.
func (l *domainLimiter) done(s *domainSlot) {
	if s == nil {
		return
	}
	l.mu.Lock()
	s.held--
	l.mu.Unlock()
}
