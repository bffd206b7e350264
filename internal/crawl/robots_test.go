package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestCheckRobotsCrawlDelay: CheckRobots gives the Crawl-delay of the
// group robots.txt has for the Fetcher's user agent (the most specific
// one), refuses a disallowed URL as Fetch does, reads robots.txt once for
// both (the shared cache), bounds a huge delay, and reads nothing when
// robots.txt is not obeyed.
func TestCheckRobotsCrawlDelay(t *testing.T) {
	t.Parallel()
	var robotsHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robotsHits.Add(1)
		fmt.Fprint(w, "User-agent: *\nCrawl-delay: 2.5\n\nUser-agent: evidencefleet\nCrawl-delay: 7\nDisallow: /private\n\n"+
			"User-agent: slowbot\nCrawl-delay: 1e12\n")
	})
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, okHTML) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	tests := []struct {
		agent, path string
		respect     bool
		want        time.Duration
		disallowed  bool
	}{
		{agent: DefaultUserAgent, path: "/x", respect: true, want: 7 * time.Second},
		{agent: DefaultUserAgent, path: "/private/page", respect: true, disallowed: true},
		{agent: "OtherBot/1.0", path: "/private/page", respect: true, want: 2500 * time.Millisecond},
		{agent: "SlowBot/1.0", path: "/x", respect: true, want: MaxCrawlDelay},
		{agent: DefaultUserAgent, path: "/x", respect: false, want: 0},
	}
	for _, tt := range tests {
		cfg := testConfig()
		cfg.UserAgent, cfg.RespectRobots = tt.agent, tt.respect
		f := newFetcher(t, cfg)
		before := robotsHits.Load()
		got, err := f.CheckRobots(ctx, srv.URL+tt.path)
		var pe *PermanentError
		switch {
		case tt.disallowed && (!errors.As(err, &pe) || pe.Reason != ReasonRobotsDisallowed):
			t.Errorf("%s %s: %v, want robots_disallowed", tt.agent, tt.path, err)
		case !tt.disallowed && (err != nil || got != tt.want):
			t.Errorf("%s %s (respect %v): %s, %v; want %s", tt.agent, tt.path, tt.respect, got, err, tt.want)
		}
		if !tt.disallowed && tt.respect {
			if _, err := f.Fetch(ctx, srv.URL+"/x"); err != nil {
				t.Errorf("%s: fetch after the check: %v", tt.agent, err)
			}
		}
		want := int32(1)
		if !tt.respect {
			want = 0
		}
		if n := robotsHits.Load() - before; n != want {
			t.Errorf("%s %s (respect %v): robots.txt read %d times for the check and the fetch, want %d", tt.agent, tt.path, tt.respect, n, want)
		}
	}
	if _, err := newFetcher(t, testConfig()).CheckRobots(ctx, "not a url"); err == nil {
		t.Error("CheckRobots accepts an invalid URL")
	}
}

// TestCapCrawlDelay: a delay longer than MaxCrawlDelay, or one that
// overflowed, is read as MaxCrawlDelay.
func TestCapCrawlDelay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want time.Duration }{
		{0, 0}, {3 * time.Second, 3 * time.Second}, {MaxCrawlDelay, MaxCrawlDelay},
		{MaxCrawlDelay + 1, MaxCrawlDelay}, {-1, MaxCrawlDelay},
	} {
		if got := capCrawlDelay(tt.in); got != tt.want {
			t.Errorf("capCrawlDelay(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
