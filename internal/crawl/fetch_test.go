package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

const okHTML = "<!doctype html><html><head><title>ok</title></head><body><p>Hello, world.</p></body></html>"

// testSite is an httptest server with the behaviours the fetcher must classify.
func testSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n\nUser-agent: otherbot\nDisallow: /\n")
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, okHTML)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain text")
	})
	mux.HandleFunc("/xhtml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xhtml+xml; charset=utf-8")
		fmt.Fprint(w, okHTML)
	})
	mux.HandleFunc("/notype", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // suppress sniffing by net/http
		fmt.Fprint(w, okHTML)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<html><body>caf\xe9</body></html>"))
	})
	mux.HandleFunc("/meta-latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"windows-1252\"></head><body>na\xefve</body></html>"))
	})
	mux.HandleFunc("/private/page", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("robots-disallowed page was requested")
		fmt.Fprint(w, okHTML)
	})
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
		if n <= 0 {
			http.Redirect(w, r, "/ok", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/redirect-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/private/page", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, strings.Repeat("x", 4096))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for range 8 {
			fmt.Fprint(w, strings.Repeat("y", 512))
			w.(http.Flusher).Flush() // no Content-Length: the limit must bite while reading
		}
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusGone)
	})
	mux.HandleFunc("/unavailable", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusTooManyRequests)
	})
	mux.HandleFunc("/request-timeout", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusRequestTimeout)
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>")
		w.(http.Flusher).Flush()
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.AllowPrivate = true
	cfg.DomainDelay = -1
	cfg.Timeout = 2 * time.Second
	return cfg
}

func newFetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func TestFetchClassification(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	cfg := testConfig()
	cfg.MaxBodyBytes = 1024
	cfg.Timeout = 10 * time.Second
	f := newFetcher(t, cfg)
	cfg.Timeout = 300 * time.Millisecond
	fShort := newFetcher(t, cfg) // for the timeout cases only, so load cannot make other cases time out

	tests := []struct {
		name       string
		path       string
		wantKind   string // "ok", "permanent", "transient"
		wantReason string
		wantRetry  time.Duration // minimum RetryAfter
		short      bool          // use the 300ms-timeout fetcher
		check      func(t *testing.T, r *Result)
	}{
		{name: "html ok", path: "/ok", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if r.Status != 200 || r.ContentType != "text/html" || string(r.Body) != okHTML {
				t.Errorf("got %d %q %q", r.Status, r.ContentType, r.Body)
			}
		}},
		{name: "text/plain ok", path: "/plain", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if r.ContentType != "text/plain" {
				t.Errorf("content type %q", r.ContentType)
			}
		}},
		{name: "xhtml ok", path: "/xhtml", wantKind: "ok"},
		{name: "no content type sniffed as html", path: "/notype", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if r.ContentType != "text/html" {
				t.Errorf("content type %q", r.ContentType)
			}
		}},
		{name: "latin1 header decoded", path: "/latin1", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if !strings.Contains(string(r.Body), "café") {
				t.Errorf("body %q", r.Body)
			}
		}},
		{name: "meta charset decoded", path: "/meta-latin1", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if !strings.Contains(string(r.Body), "naïve") {
				t.Errorf("body %q", r.Body)
			}
		}},
		{name: "redirects within limit", path: "/redirect/4", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if !strings.HasSuffix(r.FinalURL, "/ok") || !strings.HasSuffix(r.URL, "/redirect/4") {
				t.Errorf("URL %q FinalURL %q", r.URL, r.FinalURL)
			}
			// four 301s, then a 302 to /ok: each hop named with its status
			want := []int{301, 301, 301, 301, 302}
			var got []int
			for i, h := range r.Redirects {
				got = append(got, h.Status)
				if wantFrom := fmt.Sprintf("/redirect/%d", 4-i); !strings.HasSuffix(h.From, wantFrom) {
					t.Errorf("hop %d from %q, want …%s", i, h.From, wantFrom)
				}
			}
			if !slices.Equal(got, want) || !r.Moved() {
				t.Errorf("redirects %v (moved %v), want %v and moved", got, r.Moved(), want)
			}
			// the request the page answered, as sent to /ok
			if q := r.Capture.Request; q.Get("User-Agent") == "" || q.Get("Accept-Encoding") != "gzip" {
				t.Errorf("the capture's request headers %v, want the User-Agent and Accept-Encoding sent", q)
			}
		}},
		{name: "a temporary redirect is no move", path: "/redirect/0", wantKind: "ok", check: func(t *testing.T, r *Result) {
			if len(r.Redirects) != 1 || r.Redirects[0].Status != 302 || r.Moved() {
				t.Errorf("redirects %+v, moved %v: want one 302, not moved", r.Redirects, r.Moved())
			}
		}},
		{name: "robots disallow", path: "/private/page", wantKind: "permanent", wantReason: ReasonRobotsDisallowed},
		{name: "redirect into robots-disallowed path", path: "/redirect-private", wantKind: "permanent", wantReason: ReasonRobotsDisallowed},
		{name: "too many redirects", path: "/redirect/6", wantKind: "permanent", wantReason: ReasonTooManyRedirects},
		{name: "body too large (content-length)", path: "/big", wantKind: "permanent", wantReason: ReasonBodyTooLarge},
		{name: "body too large (chunked)", path: "/big-chunked", wantKind: "permanent", wantReason: ReasonBodyTooLarge},
		{name: "image/png", path: "/png", wantKind: "permanent", wantReason: ReasonUnsupportedContent},
		{name: "404", path: "/missing", wantKind: "permanent", wantReason: ReasonHTTPStatus},
		{name: "410", path: "/gone", wantKind: "permanent", wantReason: ReasonHTTPStatus},
		{name: "503 retry-after seconds", path: "/unavailable", wantKind: "transient", wantReason: ReasonHTTPStatus, wantRetry: 120 * time.Second},
		{name: "429 retry-after date", path: "/busy", wantKind: "transient", wantReason: ReasonHTTPStatus, wantRetry: 80 * time.Second},
		{name: "408", path: "/request-timeout", wantKind: "transient", wantReason: ReasonHTTPStatus},
		{name: "500", path: "/boom", wantKind: "transient", wantReason: ReasonHTTPStatus},
		{name: "timeout before headers", path: "/slow", wantKind: "transient", wantReason: ReasonTimeout, short: true},
		{name: "timeout while reading body", path: "/slow-body", wantKind: "transient", wantReason: ReasonTimeout, short: true},
		{name: "invalid URL", path: "ftp://example.com/x", wantKind: "permanent", wantReason: ReasonInvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := tt.path
			if strings.HasPrefix(u, "/") {
				u = srv.URL + u
			}
			ff := f
			if tt.short {
				ff = fShort
			}
			res, err := ff.Fetch(context.Background(), u)
			switch tt.wantKind {
			case "ok":
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if tt.check != nil {
					tt.check(t, res)
				}
			case "permanent":
				var pe *PermanentError
				if !errors.As(err, &pe) || !IsPermanent(err) {
					t.Fatalf("want permanent error, got %v (%T)", err, err)
				}
				if pe.Reason != tt.wantReason {
					t.Fatalf("reason %q, want %q (%v)", pe.Reason, tt.wantReason, err)
				}
			case "transient":
				var te *TransientError
				if !errors.As(err, &te) || IsPermanent(err) {
					t.Fatalf("want transient error, got %v (%T)", err, err)
				}
				if te.Reason != tt.wantReason {
					t.Fatalf("reason %q, want %q (%v)", te.Reason, tt.wantReason, err)
				}
				if te.Wait < tt.wantRetry {
					t.Fatalf("RetryAfter %s, want >= %s", te.Wait, tt.wantRetry)
				}
				if tt.wantRetry > 0 {
					if d, ok := remoteerr.RetryAfter(err); !ok || d != te.Wait {
						t.Fatalf("RetryAfter(err) = %s, %v", d, ok)
					}
				}
			}
		})
	}
}

func TestRobotsUserAgentGroupAndIgnore(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	cfg := testConfig()
	cfg.UserAgent = "OtherBot/2.0"
	f := newFetcher(t, cfg)
	_, err := f.Fetch(context.Background(), srv.URL+"/ok")
	var pe *PermanentError
	if !errors.As(err, &pe) || pe.Reason != ReasonRobotsDisallowed {
		t.Fatalf("otherbot group should disallow everything, got %v", err)
	}

	cfg.RespectRobots = false
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("robots.txt fetched although RespectRobots is false")
	})
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, okHTML) })
	srv2 := httptest.NewServer(mux)
	defer srv2.Close()
	if _, err := newFetcher(t, cfg).Fetch(context.Background(), srv2.URL+"/x"); err != nil {
		t.Fatal(err)
	}
}

func TestRobotsCachedAndServerErrors(t *testing.T) {
	t.Parallel()
	var robotsHits, status atomic.Int32
	status.Store(500)
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robotsHits.Add(1)
		if s := int(status.Load()); s != 200 {
			w.WriteHeader(s)
			return
		}
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	})
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, okHTML) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := newFetcher(t, testConfig())

	_, err := f.Fetch(context.Background(), srv.URL+"/x")
	var te *TransientError
	if !errors.As(err, &te) || te.Reason != ReasonRobotsUnavailable {
		t.Fatalf("robots.txt 500 should be transient robots_unavailable, got %v", err)
	}
	status.Store(200)
	for range 3 {
		if _, err := f.Fetch(context.Background(), srv.URL+"/x"); err != nil {
			t.Fatal(err)
		}
	}
	if n := robotsHits.Load(); n != 2 {
		t.Fatalf("robots.txt fetched %d times, want 2 (failure not cached, success cached)", n)
	}
}

func TestSSRFGuard(t *testing.T) {
	t.Parallel()
	var targetHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
		fmt.Fprint(w, okHTML)
	}))
	defer target.Close()
	targetPort := target.Listener.Addr().(*net.TCPAddr).Port

	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-literal":
			http.Redirect(w, r, target.URL+"/", http.StatusFound)
		case "/to-hostname":
			http.Redirect(w, r, fmt.Sprintf("http://localhost:%d/", targetPort), http.StatusFound)
		case "/robots.txt":
			http.NotFound(w, r)
		default:
			fmt.Fprint(w, okHTML)
		}
	}))
	defer redirector.Close()
	redirPort := redirector.Listener.Addr().(*net.TCPAddr).Port

	cfg := testConfig()
	cfg.AllowPrivate = false
	// Only the redirector's exact address is let through the guard, standing
	// in for a public server; everything else on loopback must be refused.
	cfg.dialExempt = redirector.Listener.Addr().String()
	f := newFetcher(t, cfg)
	redirBase := fmt.Sprintf("http://localhost:%d", redirPort)

	// Sanity: the exempt "public" server itself is reachable.
	if _, err := f.Fetch(context.Background(), redirBase+"/page"); err != nil {
		t.Fatalf("exempt server: %v", err)
	}
	tests := []struct{ name, url string }{
		{"literal 127.0.0.1", target.URL + "/"},
		{"hostname resolving to loopback (dial-time check)", fmt.Sprintf("http://localhost:%d/", targetPort)},
		{"literal IPv6 loopback", fmt.Sprintf("http://[::1]:%d/", targetPort)},
		{"private 10/8 literal", "http://10.1.2.3/"},
		{"link-local metadata address", "http://169.254.169.254/latest/meta-data/"},
		{"unspecified", fmt.Sprintf("http://0.0.0.0:%d/", targetPort)},
		{"decimal number host naming loopback", fmt.Sprintf("http://2130706433:%d/", targetPort)},
		{"hexadecimal host naming loopback", fmt.Sprintf("http://0x7f000001:%d/", targetPort)},
		{"short dotted host naming loopback", fmt.Sprintf("http://127.1:%d/", targetPort)},
		{"octal host naming loopback", fmt.Sprintf("http://0177.0.0.1:%d/", targetPort)},
		{"NAT64 of loopback", fmt.Sprintf("http://[64:ff9b::7f00:1]:%d/", targetPort)},
		{"IPv4-compatible loopback", fmt.Sprintf("http://[::127.0.0.1]:%d/", targetPort)},
		{"IPv4-mapped loopback", fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", targetPort)},
		{"6to4 of loopback", "http://[2002:7f00:1::1]/"},
		{"Teredo", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"},
		{"CGNAT shared space", "http://100.64.1.1/"},
		{"documentation range", "http://203.0.113.9/"},
		{"redirect to literal 127.0.0.1", redirBase + "/to-literal"},
		{"redirect to hostname resolving to loopback", redirBase + "/to-hostname"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tt.url)
			var pe *PermanentError
			if !errors.As(err, &pe) || pe.Reason != ReasonBlockedAddress {
				t.Fatalf("want permanent blocked_address, got %v", err)
			}
			var be *BlockedAddressError
			if !errors.As(err, &be) {
				t.Fatalf("cause is not *BlockedAddressError: %v", err)
			}
		})
	}
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("blocked target was contacted %d times", n)
	}
}

// TestDomainDelayAcrossConcurrentFetches: three concurrent fetches of one
// domain are released by the limiter at least the delay apart, by the
// limiter's own clock readings (no wall-clock gap is asserted: the server's
// arrival times carry scheduling jitter), and all three reach the server.
func TestDomainDelayAcrossConcurrentFetches(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		fmt.Fprint(w, okHTML)
	}))
	defer srv.Close()
	cfg := testConfig()
	cfg.DomainDelay = delay
	f := newFetcher(t, cfg)
	var mu sync.Mutex
	var releases []time.Time
	f.rt.(*exchangeTransport).limiter.released = func(_ string, at time.Time) {
		mu.Lock()
		releases = append(releases, at)
		mu.Unlock()
	}

	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Fetch(context.Background(), fmt.Sprintf("%s/page%d", srv.URL, i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := hits.Load(); n != 3 {
		t.Fatalf("the server saw %d page requests, want 3", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(releases) != 4 { // robots.txt once + 3 pages
		t.Fatalf("%d releases, want 4", len(releases))
	}
	for i := 1; i < len(releases); i++ {
		if gap := releases[i].Sub(releases[i-1]); gap < delay {
			t.Errorf("release %d came %s after release %d, want >= %s", i, gap, i-1, delay)
		}
	}
}

func TestFetchContextCanceled(t *testing.T) {
	t.Parallel()
	srv := testSite(t)
	cfg := testConfig()
	cfg.DomainDelay = time.Hour // the second request would wait an hour
	f := newFetcher(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := f.Fetch(ctx, srv.URL+"/ok")
	if IsPermanent(err) || err == nil {
		t.Fatalf("want transient error, got %v", err)
	}
	// Without the cancellation the fetch would wait an hour for its slot.
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error should wrap context.DeadlineExceeded: %v", err)
	}
}

func writeArchive(t *testing.T, dir string, manifest string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReplayMode(t *testing.T) {
	t.Parallel()
	var liveHits atomic.Int32
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		liveHits.Add(1)
		fmt.Fprint(w, "LIVE")
	}))
	defer live.Close()

	// the same recordings in both archive layouts: WARC and the older manifest
	for _, layout := range []string{"warc", "manifest"} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if layout == "warc" {
				writeWARCArchive(t, dir, replayCaptures(live.URL))
			} else {
				writeManifestArchive(t, dir, live.URL)
			}
			testReplayMode(t, dir, live.URL, &liveHits)
		})
	}
}

// replayCaptures are TestReplayMode's recordings as WARC captures.
func replayCaptures(liveURL string) []warc.Capture {
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	page := []byte("<html><body>recorded</body></html>")
	return []warc.Capture{
		{URL: "https://en.wikipedia.org/wiki/Polar_bear", Header: html, Body: []byte("<html><body><p>The polar bear is a large bear.</p></body></html>")},
		{URL: "https://en.wikipedia.org/wiki/Caf%C3%A9", Header: html, Body: []byte("<html><body>café</body></html>")},
		{URL: "http://example.org/robots.txt", Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("User-agent: *\nDisallow: /secret\n")},
		{URL: "https://example.org/secret", Header: http.Header{"Content-Type": {"text/html"}}, Body: page},
		{URL: "https://example.org/old", Status: 301, Header: http.Header{"Location": {"https://example.org/new?utm_source=x"}}},
		{URL: "https://example.org/new", Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("an earlier capture, replaced by the later one")},
		{URL: "https://example.org/new", Header: http.Header{"Content-Type": {"text/html"}}, Body: page},
		{URL: "https://example.org/down", Status: 503, Header: http.Header{"Retry-After": {"30"}}},
		{URL: "https://example.org/logo.png", Header: http.Header{"Content-Type": {"image/png"}}, Body: page},
		{URL: liveURL + "/recorded", Header: http.Header{"Content-Type": {"text/html"}}, Body: page},
	}
}

// writeWARCArchive writes captures as dir/archive.warc.gz.
func writeWARCArchive(t *testing.T, dir string, captures []warc.Capture) {
	t.Helper()
	for i := range captures {
		captures[i].Date = time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
	}
	var b bytes.Buffer
	if err := warc.Write(&b, "test", captures); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "archive.warc.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeManifestArchive(t *testing.T, dir, liveURL string) {
	t.Helper()
	manifest := strings.Join([]string{
		`{"url":"https://en.wikipedia.org/wiki/Polar_bear","status":200,"content_type":"text/html; charset=utf-8","file":"wiki/Polar_bear.html"}`,
		`{"url":"https://en.wikipedia.org/wiki/Caf%C3%A9","content_type":"text/html; charset=utf-8","file":"wiki/Cafe.html"}`,
		`{"url":"http://example.org/robots.txt","content_type":"text/plain","file":"example.org/robots.txt"}`,
		`{"url":"https://example.org/secret","content_type":"text/html","file":"example.org/page.html"}`,
		`{"url":"https://example.org/old","status":301,"headers":{"Location":"https://example.org/new?utm_source=x"}}`,
		`{"url":"https://example.org/new","content_type":"text/html","file":"example.org/page.html"}`,
		`{"url":"https://example.org/down","status":503,"headers":{"Retry-After":"30"}}`,
		`{"url":"https://example.org/logo.png","content_type":"image/png","file":"example.org/page.html"}`,
		"",
		fmt.Sprintf(`{"url":%q,"content_type":"text/html","file":"example.org/page.html"}`, liveURL+"/recorded"),
	}, "\n")
	writeArchive(t, dir, manifest, map[string]string{
		"wiki/Polar_bear.html":   "<html><body><p>The polar bear is a large bear.</p></body></html>",
		"wiki/Cafe.html":         "<html><body>café</body></html>",
		"example.org/robots.txt": "User-agent: *\nDisallow: /secret\n",
		"example.org/page.html":  "<html><body>recorded</body></html>",
	})
}

func testReplayMode(t *testing.T, dir, liveURL string, liveHits *atomic.Int32) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.ReplayDir = dir
	f := newFetcher(t, cfg)
	if !f.Replay() || f.live != nil {
		t.Fatal("replay fetcher must not have a network transport")
	}

	tests := []struct {
		url, wantBody, wantFinal, wantReason string
		wantRetry                            time.Duration
	}{
		{url: "https://en.wikipedia.org/wiki/Polar_bear#Distribution", wantBody: "polar bear is a large bear", wantFinal: "https://en.wikipedia.org/wiki/Polar_bear"},
		{url: "https://EN.wikipedia.org/wiki/Café", wantBody: "café", wantFinal: "https://en.wikipedia.org/wiki/Caf%C3%A9"},
		{url: "https://example.org/old", wantBody: "recorded", wantFinal: "https://example.org/new"},
		{url: liveURL + "/recorded", wantBody: "recorded"},
		{url: "https://example.org/secret", wantReason: ReasonRobotsDisallowed},
		{url: "https://example.org/not-recorded", wantReason: ReasonHTTPStatus},
		{url: "https://example.org/logo.png", wantReason: ReasonUnsupportedContent},
		{url: "https://example.org/down", wantReason: ReasonHTTPStatus, wantRetry: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			res, err := f.Fetch(context.Background(), tt.url)
			if tt.wantReason != "" {
				var pe *PermanentError
				var te *TransientError
				switch {
				case errors.As(err, &pe) && tt.wantRetry == 0:
					if pe.Reason != tt.wantReason {
						t.Fatalf("reason %q, want %q", pe.Reason, tt.wantReason)
					}
				case errors.As(err, &te) && tt.wantRetry > 0:
					if te.Reason != tt.wantReason || te.Wait != tt.wantRetry {
						t.Fatalf("got %v", te)
					}
				default:
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != 200 || res.ContentType != "text/html" || !strings.Contains(string(res.Body), tt.wantBody) {
				t.Fatalf("got %d %q %q", res.Status, res.ContentType, res.Body)
			}
			if tt.wantFinal != "" && res.FinalURL != tt.wantFinal {
				t.Fatalf("FinalURL %q, want %q", res.FinalURL, tt.wantFinal)
			}
		})
	}
	if n := liveHits.Load(); n != 0 {
		t.Fatalf("replay mode contacted a live server %d times", n)
	}

	// Many goroutines on one Fetcher (run with -race).
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Fetch(context.Background(), "https://en.wikipedia.org/wiki/Polar_bear"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestReplayManifestErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"bad json":        `{"url":`,
		"unknown field":   `{"url":"https://a.example/","bogus":1}`,
		"bad url":         `{"url":"ftp://a.example/"}`,
		"duplicate":       `{"url":"https://a.example/"}` + "\n" + `{"url":"HTTPS://a.example"}`,
		"escaping file":   `{"url":"https://a.example/","file":"../etc/passwd"}`,
		"absolute file":   `{"url":"https://a.example/","file":"/etc/passwd"}`,
		"invalid status":  `{"url":"https://a.example/","status":42}`,
		"missing archive": "",
	}
	for name, manifest := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if name != "missing archive" {
				writeArchive(t, dir, manifest, nil)
			}
			if _, err := New(Config{ReplayDir: dir}); err == nil {
				t.Fatal("want error")
			}
		})
	}
}

// TestStatusRetryAfter: a 429 or 503 carries the wait its Retry-After asks
// for (remoteerr.ParseRetryAfter: seconds or a date, bounded by
// remoteerr.MaxRetryAfter); other statuses and bad values carry none.
func TestStatusRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		status int
		header string
		want   time.Duration
	}{
		{429, "120", 120 * time.Second},
		{503, "Thu, 02 Jan 2025 03:05:05 GMT", time.Minute},
		{429, "Thu, 02 Jan 2025 03:00:00 GMT", 0},
		{429, "999999999999", remoteerr.MaxRetryAfter},
		{429, "-5", 0},
		{503, "soon", 0},
		{500, "120", 0},
	}
	for _, tt := range tests {
		err := classifyStatus("http://a.example/", tt.status, http.Header{"Retry-After": {tt.header}}, now)
		got, _ := remoteerr.RetryAfter(err)
		if got != tt.want {
			t.Errorf("status %d, Retry-After %q: wait %s, want %s", tt.status, tt.header, got, tt.want)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	live := Config{}.withDefaults()
	if live.UserAgent != DefaultUserAgent || live.Timeout != DefaultTimeout || live.MaxBodyBytes != DefaultMaxBodyBytes ||
		live.MaxRedirects != DefaultMaxRedirects || live.DomainDelay != DefaultDomainDelay {
		t.Fatalf("live defaults: %+v", live)
	}
	if replay := (Config{ReplayDir: "x"}).withDefaults(); replay.DomainDelay != 0 {
		t.Fatalf("replay default delay %s, want 0", replay.DomainDelay)
	}
	d := DefaultConfig()
	if !d.RespectRobots || d.withDefaults().DomainDelay != DefaultDomainDelay {
		t.Fatalf("DefaultConfig: %+v", d)
	}
	if c := (Config{MaxRedirects: -1, DomainDelay: -1}).withDefaults(); c.MaxRedirects != 0 || c.DomainDelay != 0 {
		t.Fatalf("negative values: %+v", c)
	}
}

// TestReplayedFetchesCount checks that page fetches answered from a replay
// archive count in the job's cost meter with their body bytes, and that
// robots.txt and a page robots.txt disallows (never requested) do not.
func TestReplayedFetchesCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := "<html><body><p>The polar bear is a large bear.</p></body></html>"
	writeArchive(t, dir, strings.Join([]string{
		`{"url":"https://example.org/bear","content_type":"text/html","file":"bear.html"}`,
		`{"url":"https://example.org/robots.txt","content_type":"text/plain","file":"robots.txt"}`,
	}, "\n"), map[string]string{"bear.html": page, "robots.txt": "User-agent: *\nDisallow: /secret\n"})
	cfg := DefaultConfig()
	cfg.ReplayDir = dir
	cfg.RespectRobots = true
	f := newFetcher(t, cfg)
	ctx, meter := cost.WithMeter(context.Background())
	for range 2 {
		if _, err := f.Fetch(ctx, "https://example.org/bear"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Fetch(ctx, "https://example.org/secret"); err == nil {
		t.Fatal("a page robots.txt disallows was fetched")
	}
	if got, want := meter.Counts(), (cost.Counts{Fetches: 2, FetchBytes: int64(2 * len(page))}); got != want {
		t.Errorf("meter %+v, want %+v", got, want)
	}
}

// TestReplayWARCErrors: a WARC archive past its bounds or broken is refused
// when it is opened, naming the file; a directory with no archive at all
// names both layouts.
func TestReplayWARCErrors(t *testing.T) {
	t.Parallel()
	huge := http.Header{"X-Padding": {strings.Repeat("x", maxArchiveHeaderBytes)}}
	for name, write := range map[string]func(dir string){
		"HTTP headers over the bound": func(dir string) {
			writeWARCArchive(t, dir, []warc.Capture{{URL: "https://example.org/a", Header: huge, Body: []byte("a")}})
		},
		"a cut-off file": func(dir string) {
			writeWARCArchive(t, dir, []warc.Capture{{URL: "https://example.org/a", Body: []byte(strings.Repeat("page ", 500))}})
			path := filepath.Join(dir, "archive.warc.gz")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b[:len(b)-40], 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"a target URI that is no URL": func(dir string) {
			writeWARCArchive(t, dir, []warc.Capture{{URL: "mailto:someone@example.org", Body: []byte("a")}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(dir)
			if _, err := OpenArchive(dir); err == nil || !strings.Contains(err.Error(), "archive.warc.gz") {
				t.Errorf("OpenArchive: %v, want an error naming archive.warc.gz", err)
			}
		})
	}
	if _, err := OpenArchive(t.TempDir()); err == nil || !strings.Contains(err.Error(), ManifestFile) || !strings.Contains(err.Error(), ".warc.gz") {
		t.Errorf("an empty directory: %v, want an error naming both layouts", err)
	}
}
