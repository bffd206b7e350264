package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pause sleeps d or until the client goes away.
func pause(r *http.Request, d time.Duration) {
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

// wantDeadline fails t unless err is the transient timeout of a passed
// fetch deadline whose message contains each of parts.
func wantDeadline(t *testing.T, err error, parts ...string) {
	t.Helper()
	var te *TransientError
	if !errors.As(err, &te) || IsPermanent(err) || te.Reason != ReasonTimeout {
		t.Fatalf("want transient %s (fetch deadline), got %v", ReasonTimeout, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

// TestFetchDeadlineCoversTheWholeFetch: Config.Timeout bounds one fetch,
// however its time is split between redirect hops, the robots.txt of every
// origin on the way and the body, each of which answers well within it.
// Before, each exchange had the whole timeout of its own: the redirect chain
// succeeded after 3.6 s, the six robots.txt after 3.6 s, robots.txt and
// body after 1.4 s, all with a 1 s timeout.
func TestFetchDeadlineCoversTheWholeFetch(t *testing.T) {
	t.Parallel()
	const deadline = time.Second
	setup := func(t *testing.T) *Fetcher {
		t.Helper()
		cfg := testConfig()
		cfg.Timeout = deadline
		return newFetcher(t, cfg)
	}
	site := func(t *testing.T, h http.HandlerFunc) *httptest.Server {
		t.Helper()
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv
	}
	run := func(t *testing.T, f *Fetcher, u string, parts ...string) {
		t.Helper()
		start := time.Now()
		_, err := f.Fetch(context.Background(), u)
		took := time.Since(start)
		t.Logf("deadline %s: returned after %.2f s: %v", deadline, took.Seconds(), err)
		wantDeadline(t, err, parts...) // the old code succeeded: each exchange had the whole timeout
	}

	t.Run("5 redirects of 600ms each, 3.6s in all", func(t *testing.T) {
		t.Parallel()
		srv := site(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			pause(r, 600*time.Millisecond)
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
			if n <= 0 {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, okHTML)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		})
		run(t, setup(t), srv.URL+"/hop/5", "fetch deadline 1s passed after", "redirect", srv.URL+"/hop/")
	})

	t.Run("robots.txt of 6 origins of 600ms each, 3.6s in all", func(t *testing.T) {
		t.Parallel()
		next := ""
		for i := range 6 {
			last := i == 0
			to := next
			srv := site(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					pause(r, 600*time.Millisecond)
					fmt.Fprint(w, "User-agent: *\nAllow: /\n")
					return
				}
				if last {
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, okHTML)
					return
				}
				http.Redirect(w, r, to, http.StatusFound)
			})
			next = srv.URL + "/page"
		}
		run(t, setup(t), next, "fetch deadline 1s passed after", "redirect", "/robots.txt")
	})

	t.Run("robots.txt 700ms then a body of 700ms, 1.4s in all", func(t *testing.T) {
		t.Parallel()
		srv := site(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				pause(r, 700*time.Millisecond)
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>")
			w.(http.Flusher).Flush()
			pause(r, 700*time.Millisecond)
			fmt.Fprint(w, "slow</body></html>")
		})
		run(t, setup(t), srv.URL+"/page", "fetch deadline 1s passed after 0 redirects, while fetching "+srv.URL+"/page")
	})

	t.Run("politeness waits of 1.5s are not counted", func(t *testing.T) {
		t.Parallel()
		srv := testSite(t)
		cfg := testConfig()
		cfg.Timeout = deadline
		cfg.DomainDelay = 500 * time.Millisecond
		f := newFetcher(t, cfg)
		start := time.Now()
		// robots.txt, /redirect/1, /redirect/0, /ok: three waits of 500ms.
		res, err := f.Fetch(context.Background(), srv.URL+"/redirect/1")
		took := time.Since(start)
		t.Logf("deadline %s, domain delay %s: returned after %.2f s: %v", deadline, cfg.DomainDelay, took.Seconds(), err)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(res.FinalURL, "/ok") || took < 1500*time.Millisecond-50*time.Millisecond {
			t.Fatalf("FinalURL %s after %s: want /ok after three politeness waits", res.FinalURL, took)
		}
	})
}
