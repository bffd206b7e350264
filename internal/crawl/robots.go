package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// Bounds on what an origin's robots.txt may cost (ARCHITECTURE.md §8): its rules
// compile to matchers, a wildcard rule costing about a kilobyte, so a
// robots.txt is read up to robotsMaxRules Allow/Disallow lines (after the
// 500 KiB byte cap), and the cache across origins keeps an estimated
// robotsCacheBudget bytes, dropping the least recently stored entries first.
const (
	robotsMaxRules    = 1000
	robotsRuleCost    = 1 << 10
	robotsCacheBudget = 32 << 20
)

// robotsCache holds parsed robots.txt files per origin (scheme://host:port),
// shared by all Fetch calls. colly keeps its robots cache per Collector and
// fetches robots.txt without the caller's context, so the Fetcher does this
// itself (still fetching through colly and the same guarded transport).
type robotsCache struct {
	mu     sync.Mutex
	m      map[string]*robotsEntry
	budget int64 // estimated bytes of parsed robots.txt kept
	cost   int64 // estimated bytes kept now
	clock  int64 // store counter, for least-recently-stored eviction
}

type robotsEntry struct {
	origin  string
	sem     chan struct{} // 1-slot lock: one fetch per origin at a time, ctx-aware
	data    *robotstxt.RobotsData
	expires time.Time
	cost    int64 // estimated bytes of data
	stored  int64 // robotsCache.clock when data was stored
}

func newRobotsCache() *robotsCache {
	return &robotsCache{m: make(map[string]*robotsEntry), budget: robotsCacheBudget}
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
					c.cost -= v.cost
					delete(c.m, k)
				}
			}
		}
		e = &robotsEntry{origin: origin, sem: make(chan struct{}, 1)}
		c.m[origin] = e
	}
	return e
}

// store keeps data in e (whose sem the caller holds) and evicts other idle
// entries, least recently stored first, while the cache is over budget.
func (c *robotsCache) store(e *robotsEntry, data *robotstxt.RobotsData, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[e.origin] != e {
		// Evicted while its fetch ran: this caller uses the data, nobody keeps it.
		e.data, e.expires = data, time.Now().Add(RobotsTTL)
		return
	}
	c.clock++
	c.cost += cost - e.cost
	e.data, e.expires, e.cost, e.stored = data, time.Now().Add(RobotsTTL), cost, c.clock
	for c.cost > c.budget {
		var oldest string
		for k, v := range c.m {
			if v != e && v.data != nil && len(v.sem) == 0 && (oldest == "" || v.stored < c.m[oldest].stored) {
				oldest = k
			}
		}
		if oldest == "" {
			return // only busy entries left; they are counted and evicted later
		}
		c.cost -= c.m[oldest].cost
		delete(c.m, oldest)
	}
}

// capRobotsRules cuts body before its (robotsMaxRules+1)th Allow/Disallow
// line and returns it with the estimated cost of its parse.
func capRobotsRules(body []byte) ([]byte, int64) {
	rules := 0
	for off := 0; off < len(body); {
		end := bytes.IndexByte(body[off:], '\n')
		if end < 0 {
			end = len(body) - off
		}
		line := bytes.ToLower(bytes.TrimSpace(body[off : off+end]))
		if bytes.HasPrefix(line, []byte("allow")) || bytes.HasPrefix(line, []byte("disallow")) {
			if rules == robotsMaxRules {
				body = body[:off]
				break
			}
			rules++
		}
		off += end + 1
	}
	return body, int64(len(body)) + int64(rules)*robotsRuleCost
}

// checkRobots returns nil when robots.txt of u's origin allows the
// Fetcher's user agent to fetch u, a *PermanentError (ReasonRobotsDisallowed)
// when it does not, and a *TransientError when robots.txt could not be read
// (network failure, 429 or 5xx: as Google does, a server error is not read
// as "allow everything").
func (f *Fetcher) checkRobots(ctx context.Context, u *url.URL) error {
	_, err := f.robotsGroup(ctx, u)
	return err
}

// robotsGroup reads robots.txt of u's origin (from the cache, or fetched
// when missing or expired) and returns the group of rules it has for the
// Fetcher's user agent, or checkRobots's errors.
func (f *Fetcher) robotsGroup(ctx context.Context, u *url.URL) (*robotstxt.Group, error) {
	origin := u.Scheme + "://" + u.Host
	e := f.robots.entry(origin)
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	data := e.data
	if data == nil || time.Now().After(e.expires) {
		var err error
		var cost int64
		data, cost, err = f.fetchRobots(ctx, origin)
		if err != nil {
			<-e.sem
			return nil, err
		}
		f.robots.store(e, data, cost)
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
		return nil, permanent(ReasonRobotsDisallowed, "%s disallowed by %s/robots.txt", u, origin)
	}
	return data.FindGroup(f.cfg.UserAgent), nil
}

// MaxCrawlDelay is the longest Crawl-delay taken from a robots.txt: a
// longer one is read as this.
const MaxCrawlDelay = 24 * time.Hour

// CheckRobots reads robots.txt of rawURL's origin as Fetch will (the same
// cache, bounds and errors, under a deadline of Config.Timeout of its own)
// and returns the Crawl-delay it asks of the Fetcher's user agent, 0 when
// it asks none (at most MaxCrawlDelay): a *PermanentError
// (ReasonRobotsDisallowed) when it disallows rawURL, a *TransientError when
// it could not be read. It reads nothing, and returns 0, when the Fetcher
// does not obey robots.txt. The fleet-wide politeness of target_queue asks
// it before reserving a fetch, so that robots.txt's Crawl-delay can widen
// the domain's spacing and a disallowed URL takes no turn.
func (f *Fetcher) CheckRobots(ctx context.Context, rawURL string) (time.Duration, error) {
	if !f.cfg.RespectRobots {
		return 0, nil
	}
	norm, u, err := f.target(rawURL)
	if err != nil {
		return 0, err
	}
	ctx, release := startClock(ctx, f.cfg.Timeout, norm)
	defer release()
	g, err := f.robotsGroup(ctx, u)
	if err != nil {
		return 0, classifyErr(ctx, norm, err)
	}
	return capCrawlDelay(g.CrawlDelay), nil
}

// capCrawlDelay bounds a parsed Crawl-delay by MaxCrawlDelay (a huge value
// may have overflowed to a negative Duration in the parser).
func capCrawlDelay(d time.Duration) time.Duration {
	if d < 0 || d > MaxCrawlDelay {
		return MaxCrawlDelay
	}
	return d
}

var allowAllRobots, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)

// fetchRobots reads origin's robots.txt and returns it parsed, with the
// estimated cost of keeping it.
func (f *Fetcher) fetchRobots(ctx context.Context, origin string) (*robotstxt.RobotsData, int64, error) {
	target := origin + "/robots.txt"
	rctx := context.WithValue(ctx, bodyLimitKey{}, bodyLimit{max: robotsMaxBytes, truncate: true})
	ex, err := f.exchange(rctx, target, false)
	if err != nil {
		cerr := classifyErr(ctx, target, err)
		var pe *PermanentError
		if errors.As(cerr, &pe) {
			if pe.Reason == ReasonBlockedAddress || pe.Reason == ReasonBodyTooLarge {
				return nil, 0, pe // a blocked origin, a robots.txt bomb: the page fails too
			}
			return allowAllRobots, 0, nil // e.g. redirect loop: no usable robots.txt
		}
		var te *TransientError
		errors.As(cerr, &te)
		if te != nil && (te.Reason == ReasonCanceled || te.Reason == ReasonTimeout) && ctx.Err() != nil {
			return nil, 0, te
		}
		retry := time.Duration(0)
		if te != nil {
			retry = te.Wait
		}
		return nil, 0, &TransientError{Reason: ReasonRobotsUnavailable, Wait: retry, Err: cerr}
	}
	if f.replay == nil { // a replay archive's robots.txt was recorded already, or made up (a 404)
		noteRobots(ctx, target, ex)
	}
	switch s := ex.status; {
	case s >= 200 && s <= 299:
		capped, cost := capRobotsRules(ex.body)
		data, perr := robotstxt.FromBytes(capped)
		if perr != nil {
			return allowAllRobots, 0, nil // unparsable: treat like no robots.txt
		}
		return data, cost, nil
	case s == http.StatusTooManyRequests || s >= 500:
		return nil, 0, &TransientError{
			Reason: ReasonRobotsUnavailable,
			Wait:   retryAfter(ex.header.Get("Retry-After"), time.Now()),
			Err:    fmt.Errorf("%s: HTTP %d", target, s),
		}
	default: // 4xx, unfollowed 3xx: no robots.txt, everything allowed
		return allowAllRobots, 0, nil
	}
}
