package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// robotsCache holds parsed robots.txt files per origin (scheme://host:port),
// shared by all Fetch calls. colly keeps its robots cache per Collector and
// fetches robots.txt without the caller's context, so the Fetcher does this
// itself (still fetching through colly and the same guarded transport).
type robotsCache struct {
	mu sync.Mutex
	m  map[string]*robotsEntry
}

type robotsEntry struct {
	sem     chan struct{} // 1-slot lock: one fetch per origin at a time, ctx-aware
	data    *robotstxt.RobotsData
	expires time.Time
}

func newRobotsCache() *robotsCache {
	return &robotsCache{m: make(map[string]*robotsEntry)}
}

func (c *robotsCache) entry(origin string) *robotsEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[origin]
	if !ok {
		if len(c.m) > 10000 {
			now := time.Now()
			for k, v := range c.m {
				if len(v.sem) == 0 && v.expires.Before(now) {
					delete(c.m, k)
				}
			}
		}
		e = &robotsEntry{sem: make(chan struct{}, 1)}
		c.m[origin] = e
	}
	return e
}

// checkRobots returns nil when robots.txt of u's origin allows the
// Fetcher's user agent to fetch u, a *PermanentError (ReasonRobotsDisallowed)
// when it does not, and a *TransientError when robots.txt could not be read
// (network failure, 429 or 5xx: as Google does, a server error is not read
// as "allow everything").
func (f *Fetcher) checkRobots(ctx context.Context, u *url.URL) error {
	origin := u.Scheme + "://" + u.Host
	e := f.robots.entry(origin)
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	data := e.data
	if data == nil || time.Now().After(e.expires) {
		var err error
		data, err = f.fetchRobots(ctx, origin)
		if err != nil {
			<-e.sem
			return err
		}
		e.data, e.expires = data, time.Now().Add(robotsTTL)
	}
	<-e.sem

	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !data.TestAgent(path, f.cfg.UserAgent) {
		return permanent(ReasonRobotsDisallowed, "%s disallowed by %s/robots.txt", u, origin)
	}
	return nil
}

var allowAllRobots, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)

func (f *Fetcher) fetchRobots(ctx context.Context, origin string) (*robotstxt.RobotsData, error) {
	target := origin + "/robots.txt"
	rctx := context.WithValue(ctx, bodyLimitKey{}, bodyLimit{max: robotsMaxBytes, truncate: true})
	ex, err := f.exchange(rctx, target, false)
	if err != nil {
		cerr := classifyErr(ctx, target, err)
		var pe *PermanentError
		if errors.As(cerr, &pe) {
			if pe.Reason == ReasonBlockedAddress {
				return nil, pe
			}
			return allowAllRobots, nil // e.g. redirect loop: no usable robots.txt
		}
		var te *TransientError
		errors.As(cerr, &te)
		if te != nil && (te.Reason == ReasonCanceled || te.Reason == ReasonTimeout) && ctx.Err() != nil {
			return nil, te
		}
		retry := time.Duration(0)
		if te != nil {
			retry = te.RetryAfter
		}
		return nil, &TransientError{Reason: ReasonRobotsUnavailable, RetryAfter: retry, Err: cerr}
	}
	switch s := ex.status; {
	case s >= 200 && s <= 299:
		data, perr := robotstxt.FromBytes(ex.body)
		if perr != nil {
			return allowAllRobots, nil // unparsable: treat like no robots.txt
		}
		return data, nil
	case s == http.StatusTooManyRequests || s >= 500:
		return nil, &TransientError{
			Reason:     ReasonRobotsUnavailable,
			RetryAfter: parseRetryAfter(ex.header.Get("Retry-After"), time.Now()),
			Err:        fmt.Errorf("%s: HTTP %d", target, s),
		}
	default: // 4xx, unfollowed 3xx: no robots.txt, everything allowed
		return allowAllRobots, nil
	}
}
