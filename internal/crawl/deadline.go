package crawl

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// fetchClockKey carries a Fetch's *fetchClock in the context of its requests.
type fetchClockKey struct{}

// fetchClock is the one deadline of a Fetch: Config.Timeout of time spent on
// the fetch's requests, wherever it goes (connection set-up, every redirect
// hop, the robots.txt of every origin on the way, reading the body). It is
// stopped while a request waits for its politeness turn, which is the
// limiter's doing, not the server's. When it runs out it cancels the fetch's
// context with a *TransientError (ReasonTimeout) that names the deadline,
// the redirects followed and the request under way.
type fetchClock struct {
	limit  time.Duration
	target string
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	left      time.Duration // time left when the clock last started or stopped
	since     time.Time     // when the clock last started
	stopped   int           // politeness waits under way; the clock runs at 0
	timer     *time.Timer
	redirects int    // redirects followed so far
	at        string // URL of the latest request
	err       *TransientError
}

// startClock returns ctx bounded by a running fetchClock of limit for the
// fetch of target (clockFrom finds it), and the function that releases it.
func startClock(ctx context.Context, limit time.Duration, target string) (context.Context, func()) {
	fctx, cancel := context.WithCancelCause(ctx)
	c := &fetchClock{limit: limit, target: target, cancel: cancel, left: limit, since: time.Now(), at: target}
	c.mu.Lock()
	c.timer = time.AfterFunc(limit, c.expire)
	c.mu.Unlock()
	fctx = context.WithValue(fctx, fetchClockKey{}, c)
	return fctx, func() {
		c.mu.Lock()
		c.timer.Stop()
		c.mu.Unlock()
		cancel(context.Canceled)
	}
}

// clockFrom returns the fetchClock of ctx, or nil.
func clockFrom(ctx context.Context) *fetchClock {
	c, _ := ctx.Value(fetchClockKey{}).(*fetchClock)
	return c
}

// expire runs when the timer fires: it cancels the fetch if its time is
// really up (the clock may have been stopped, or restarted, meanwhile).
func (c *fetchClock) expire() {
	c.mu.Lock()
	if c.stopped > 0 || c.err != nil {
		c.mu.Unlock()
		return
	}
	if rest := c.left - time.Since(c.since); rest > 0 {
		c.timer.Reset(rest)
		c.mu.Unlock()
		return
	}
	s := "s"
	if c.redirects == 1 {
		s = ""
	}
	c.err = &TransientError{Reason: ReasonTimeout,
		Err: fmt.Errorf("%s: fetch deadline %s passed after %d redirect%s, while fetching %s", c.target, c.limit, c.redirects, s, c.at)}
	err := c.err
	c.mu.Unlock()
	c.cancel(err)
}

// stop stops the clock for a politeness wait; start restarts it.
func (c *fetchClock) stop() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped == 0 {
		c.left -= time.Since(c.since)
		c.timer.Stop()
	}
	c.stopped++
}

func (c *fetchClock) start() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped--
	if c.stopped == 0 && c.err == nil {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// request records the URL of a request the fetch makes.
func (c *fetchClock) request(u string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.at = u
	c.mu.Unlock()
}

// redirected records that the fetch follows its n-th redirect.
func (c *fetchClock) redirected(n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.redirects = max(c.redirects, n)
	c.mu.Unlock()
}
