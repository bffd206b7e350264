package crawl

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRobotsCaptures: the robots.txt a fetch reads from the web is
// collected in its context's RobotsCaptures, as received (status, body,
// the request's headers); one the cache answers is not read again, so not
// collected; without a collector nothing is kept.
func TestRobotsCaptures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"a robots.txt", http.StatusOK, "User-agent: *\nDisallow: /private\n"},
		{"none (404)", http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					w.Header().Set("Content-Type", "text/plain")
					w.WriteHeader(tc.status)
					_, _ = w.Write([]byte(tc.body))
					return
				}
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<p>page</p>"))
			}))
			t.Cleanup(site.Close)
			f, err := New(Config{AllowPrivate: true, RespectRobots: true, DomainDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			ctx, rc := WithRobotsCaptures(context.Background())
			if _, err := f.CheckRobots(ctx, site.URL+"/a"); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Fetch(ctx, site.URL+"/b"); err != nil {
				t.Fatal(err)
			}
			got := rc.Captures()
			if len(got) != 1 {
				t.Fatalf("%d robots.txt captures, want the one read", len(got))
			}
			c := got[0]
			if !strings.HasSuffix(c.URL, "/robots.txt") || c.Status != tc.status || (tc.status == http.StatusOK && string(c.Body) != tc.body) ||
				c.Request.Get("User-Agent") == "" || c.Date.IsZero() {
				t.Errorf("capture %+v", c)
			}
			other, rc2 := WithRobotsCaptures(context.Background())
			if _, err := f.Fetch(other, site.URL+"/c"); err != nil || len(rc2.Captures()) != 0 {
				t.Errorf("a fetch the cache answered collected %d captures (%v)", len(rc2.Captures()), err)
			}
		})
	}
}
