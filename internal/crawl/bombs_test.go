package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
)

// bomb is a gzip stream of 200 members of 1 MiB of zeros each: about 200 KiB
// on the wire, 200 MiB decoded.
func bomb(t *testing.T) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), 200)
}

// maxAllocated bounds what one fetch of a bomb may allocate: a few times
// the 5 MiB body limit, far below the 200 MiB the bomb decodes to.
const maxAllocated = 48 << 20

// TestDecompressionBombsAreBounded serves 200 MiB of zeros gzipped to
// 200 KiB in every way colly would gunzip without a limit, and a gzip
// robots.txt: pages fail body_too_large, robots.txt is cut at 500 KiB, and
// no fetch allocates more than maxAllocated. Not parallel: it measures the
// process's allocations.
func TestDecompressionBombsAreBounded(t *testing.T) {
	payload := bomb(t)
	page := func(w http.ResponseWriter, encoding, contentType string) {
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(payload)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/x-gzip", func(w http.ResponseWriter, r *http.Request) { page(w, "x-gzip", "text/html") })
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) { page(w, "gzip", "text/html") })
	mux.HandleFunc("/gzip-when-asked", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, okHTML)
			return
		}
		page(w, "gzip", "text/html")
	})
	mux.HandleFunc("/deflate-claimed", func(w http.ResponseWriter, r *http.Request) { page(w, "deflate", "text/html") })
	mux.HandleFunc("/br", func(w http.ResponseWriter, r *http.Request) { page(w, "br", "text/html") })
	mux.HandleFunc("/sitemap.xml.gz", func(w http.ResponseWriter, r *http.Request) { page(w, "", "text/html") })
	mux.HandleFunc("/typed", func(w http.ResponseWriter, r *http.Request) { page(w, "", "text/html; x-gzip") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := newFetcher(t, testConfig())

	tests := []struct {
		path, reason string // reason "" means fetched, with the raw bytes at most
	}{
		{"/x-gzip", ReasonBodyTooLarge},
		{"/gzip", ReasonBodyTooLarge},
		{"/gzip-when-asked", ReasonBodyTooLarge},        // the fetcher asks for gzip
		{"/deflate-claimed", ReasonUnsupportedEncoding}, // a gzip stream is no zlib stream
		{"/br", ReasonUnsupportedEncoding},
		{"/sitemap.xml.gz", ""},
		{"/typed", ReasonUnsupportedContent}, // "text/html; x-gzip" does not parse: the body is sniffed
	}
	for _, tt := range tests {
		var res *Result
		var err error
		n := hostiletest.Allocated(func() { res, err = f.Fetch(context.Background(), srv.URL+tt.path) })
		if n > maxAllocated {
			t.Errorf("%s: %d MiB allocated, want at most %d MiB", tt.path, n>>20, maxAllocated>>20)
		}
		var pe *PermanentError
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%s: %v, want the undecoded bytes", tt.path, err)
		case tt.reason == "" && len(res.Body) > 2*len(payload):
			t.Errorf("%s: %d bytes of body from %d on the wire: decoded", tt.path, len(res.Body), len(payload))
		case tt.reason != "" && (!errors.As(err, &pe) || pe.Reason != tt.reason):
			t.Errorf("%s: %v, want permanent %s", tt.path, err, tt.reason)
		}
	}

	// A compressed robots.txt that decodes past 500 KiB fails the page,
	// however the server decides to compress. Before, Go's transport asked
	// for gzip itself and decoded "gzip" out of our sight: robots.txt was
	// cut at 500 KiB and the page fetched.
	robotsBombs := []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
	}{
		{"x-gzip always", func(w http.ResponseWriter, r *http.Request) { page(w, "x-gzip", "text/plain") }},
		{"gzip always", func(w http.ResponseWriter, r *http.Request) { page(w, "gzip", "text/plain") }},
		{"gzip when asked", func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprint(w, "User-agent: *\nAllow: /\n")
				return
			}
			page(w, "gzip", "text/plain")
		}},
	}
	for _, rb := range robotsBombs {
		name := fmt.Sprintf("robots.txt %s, %d KiB decoding to %d MiB", rb.name, len(payload)>>10, 200)
		t.Run(name, func(t *testing.T) {
			var asked atomic.Value // Accept-Encoding of the page request
			robots := http.NewServeMux()
			robots.HandleFunc("/robots.txt", rb.serve)
			robots.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
				asked.Store(r.Header.Get("Accept-Encoding"))
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, okHTML)
			})
			rs := httptest.NewServer(robots)
			t.Cleanup(rs.Close)
			rf := newFetcher(t, testConfig())
			var err error
			n := hostiletest.Allocated(func() { _, err = rf.Fetch(context.Background(), rs.URL+"/ok") })
			t.Logf("%d MiB allocated: %v", n>>20, err)
			var pe *PermanentError
			if !errors.As(err, &pe) || pe.Reason != ReasonBodyTooLarge {
				t.Errorf("page under a robots.txt bomb: %v (page asked with Accept-Encoding %q), want permanent %s", err, asked.Load(), ReasonBodyTooLarge)
			}
			if n > maxAllocated {
				t.Errorf("%d MiB allocated reading a robots.txt bomb, want at most %d MiB", n>>20, maxAllocated>>20)
			}
		})
	}

	t.Run("replay", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bomb.bin"), payload, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ok.html"), []byte(okHTML), 0o644); err != nil {
			t.Fatal(err)
		}
		var manifest bytes.Buffer
		for _, e := range []ManifestEntry{
			{URL: "https://bomb.example.org/page", ContentType: "text/html", File: "bomb.bin", Headers: map[string]string{"Content-Encoding": "gzip"}},
			{URL: "https://bomb.example.org/robots.txt", ContentType: "text/plain", File: "bomb.bin", Headers: map[string]string{"Content-Encoding": "gzip"}},
			{URL: "https://bomb.example.org/ok", ContentType: "text/html", File: "ok.html"},
		} {
			line, _ := json.Marshal(e)
			manifest.Write(append(line, '\n'))
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		cfg.ReplayDir = dir
		cfg.RespectRobots = false
		rf := newFetcher(t, cfg)
		var err error
		n := hostiletest.Allocated(func() { _, err = rf.Fetch(context.Background(), "https://bomb.example.org/page") })
		var pe *PermanentError
		if !errors.As(err, &pe) || pe.Reason != ReasonBodyTooLarge {
			t.Errorf("replayed bomb: %v, want permanent %s", err, ReasonBodyTooLarge)
		}
		if n > maxAllocated {
			t.Errorf("%d MiB allocated replaying a bomb, want at most %d MiB", n>>20, maxAllocated>>20)
		}
		// Its robots.txt is a bomb too: an ordinary page of the site fails
		// when robots.txt is obeyed, and is fetched when it is not.
		if _, err := rf.Fetch(context.Background(), "https://bomb.example.org/ok"); err != nil {
			t.Fatalf("the ordinary page without robots.txt: %v", err)
		}
		cfg.RespectRobots = true
		robots := newFetcher(t, cfg)
		n = hostiletest.Allocated(func() { _, err = robots.Fetch(context.Background(), "https://bomb.example.org/ok") })
		if !errors.As(err, &pe) || pe.Reason != ReasonBodyTooLarge {
			t.Errorf("replayed robots.txt bomb: %v, want permanent %s", err, ReasonBodyTooLarge)
		}
		if n > maxAllocated {
			t.Errorf("%d MiB allocated replaying a robots.txt bomb, want at most %d MiB", n>>20, maxAllocated>>20)
		}
	})
}

// TestRobotsRulesAndCacheAreBounded: rules past robotsMaxRules are ignored,
// and the cache across origins stays within its budget by evicting the
// least recently stored robots.txt.
func TestRobotsRulesAndCacheAreBounded(t *testing.T) {
	t.Parallel()
	var robots bytes.Buffer
	robots.WriteString("User-agent: *\nDisallow: /first\n")
	for i := range robotsMaxRules - 1 {
		fmt.Fprintf(&robots, "Disallow: /*a*b*c*%d$\n", i)
	}
	robots.WriteString("Disallow: /late\n")
	site := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				_, _ = w.Write(robots.Bytes())
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, okHTML)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	f := newFetcher(t, testConfig())
	a := site()
	var pe *PermanentError
	if _, err := f.Fetch(context.Background(), a.URL+"/first"); !errors.As(err, &pe) || pe.Reason != ReasonRobotsDisallowed {
		t.Errorf("/first: %v, want robots_disallowed", err)
	}
	if _, err := f.Fetch(context.Background(), a.URL+"/late"); err != nil {
		t.Errorf("/late, rule %d of robots.txt: %v, want it ignored", robotsMaxRules+1, err)
	}
	one := f.robots.cost
	if one < robotsMaxRules*robotsRuleCost || one > robotsMaxRules*robotsRuleCost+int64(robots.Len()) {
		t.Fatalf("one robots.txt costs %d, want about %d", one, robotsMaxRules*robotsRuleCost)
	}

	f.robots.mu.Lock()
	f.robots.budget = one*2 + one/2 // room for two
	f.robots.mu.Unlock()
	for range 3 {
		if _, err := f.Fetch(context.Background(), site().URL+"/ok"); err != nil {
			t.Fatal(err)
		}
	}
	f.robots.mu.Lock()
	defer f.robots.mu.Unlock()
	if f.robots.cost > f.robots.budget || len(f.robots.m) != 2 {
		t.Errorf("cache keeps %d origins costing %d, budget %d: want the two most recent", len(f.robots.m), f.robots.cost, f.robots.budget)
	}
	if _, ok := f.robots.m["http://"+a.Listener.Addr().String()]; ok {
		t.Error("the least recently stored origin was kept")
	}
}

// TestCompressedRobotsAtTheCap: a gzip robots.txt that decodes to exactly
// 500 KiB is read whole; one byte more is a bomb and fails the page.
func TestCompressedRobotsAtTheCap(t *testing.T) {
	t.Parallel()
	gz := func(n int) []byte {
		rules := "User-agent: *\nDisallow: /private\n"
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(rules + "#" + strings.Repeat("x", n-len(rules)-2) + "\n"))
		_ = zw.Close()
		return b.Bytes()
	}
	for _, tt := range []struct {
		size   int
		reason string
	}{
		{robotsMaxBytes, ReasonRobotsDisallowed},
		{robotsMaxBytes + 1, ReasonBodyTooLarge},
	} {
		t.Run(fmt.Sprintf("%d bytes decoded", tt.size), func(t *testing.T) {
			t.Parallel()
			body := gz(tt.size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					w.Header().Set("Content-Encoding", "gzip")
					_, _ = w.Write(body)
					return
				}
				fmt.Fprint(w, okHTML)
			}))
			t.Cleanup(srv.Close)
			_, err := newFetcher(t, testConfig()).Fetch(context.Background(), srv.URL+"/private/x")
			var pe *PermanentError
			if !errors.As(err, &pe) || pe.Reason != tt.reason {
				t.Fatalf("%v, want permanent %s", err, tt.reason)
			}
		})
	}
}
