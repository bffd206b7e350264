package crawl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// issueLocationBytes is the length of the Location header of issue 24.
const issueLocationBytes = 921_630

// TestFollowedURLsAreCapped: a redirect target is refused past
// ident.MaxURLBytes, as targets are, live and replayed, with a permanent
// redirect_url_too_long; before, a 921,630-byte Location was followed and
// became the final URL.
func TestFollowedURLsAreCapped(t *testing.T) {
	t.Parallel()
	var longest atomic.Int64 // longest URL requested of /landing/
	var srv *httptest.Server
	// landing returns the URL of srv's landing page whose length is n bytes.
	landing := func(n int) string {
		u := srv.URL + "/landing/"
		return u + strings.Repeat("b", max(n-len(u), 0))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/landing/", func(w http.ResponseWriter, r *http.Request) {
		if n := int64(len(r.URL.String())); n > longest.Load() {
			longest.Store(n)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, okHTML)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		loc := landing(n)
		if r.URL.Query().Has("relative") {
			loc = strings.TrimPrefix(loc, srv.URL)
		}
		if r.URL.Query().Has("utm") { // normalising drops utm_*: the URL stored is short, the one requested is not
			loc = landing(40) + "?utm_source=" + strings.Repeat("u", n)
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
	})
	var location string // for /long
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(http.StatusFound)
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	location = "/landing/" + strings.Repeat("a", issueLocationBytes-len("/landing/"))
	f := newFetcher(t, testConfig())
	tests := []struct {
		name, url, reason string // reason "" means fetched
	}{
		{name: fmt.Sprintf("Location of %d bytes", issueLocationBytes), url: srv.URL + "/long", reason: ReasonRedirectURLTooLong},
		{name: fmt.Sprintf("redirect to %d bytes", ident.MaxURLBytes), url: fmt.Sprintf("%s/to?n=%d", srv.URL, ident.MaxURLBytes)},
		{name: fmt.Sprintf("redirect to %d bytes", ident.MaxURLBytes+1), url: fmt.Sprintf("%s/to?n=%d", srv.URL, ident.MaxURLBytes+1), reason: ReasonRedirectURLTooLong},
		{name: fmt.Sprintf("relative redirect resolving to %d bytes", ident.MaxURLBytes+1),
			url: fmt.Sprintf("%s/to?n=%d&relative", srv.URL, ident.MaxURLBytes+1), reason: ReasonRedirectURLTooLong},
		{name: fmt.Sprintf("redirect to %d bytes of utm_source, 40 normalised", ident.MaxURLBytes),
			url: fmt.Sprintf("%s/to?n=%d&utm", srv.URL, ident.MaxURLBytes), reason: ReasonRedirectURLTooLong},
		{name: fmt.Sprintf("requested URL of %d bytes", ident.MaxURLBytes+1), url: landing(ident.MaxURLBytes + 1), reason: ReasonInvalidURL},
	}
	for _, tt := range tests {
		res, err := f.Fetch(context.Background(), tt.url)
		var pe *PermanentError
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.reason == "" && len(res.FinalURL) != ident.MaxURLBytes:
			t.Errorf("%s: final URL of %d bytes", tt.name, len(res.FinalURL))
		case tt.reason != "" && err == nil:
			t.Errorf("%s: fetched, final URL of %d bytes; want permanent %s", tt.name, len(res.FinalURL), tt.reason)
		case tt.reason != "" && (!errors.As(err, &pe) || pe.Reason != tt.reason):
			t.Errorf("%s: %.300v; want permanent %s", tt.name, err, tt.reason)
		case tt.reason != "" && !strings.Contains(err.Error(), fmt.Sprint(ident.MaxURLBytes)):
			t.Errorf("%s: %.300v does not name the limit", tt.name, err)
		case tt.reason != "" && len(err.Error()) > 1000:
			t.Errorf("%s: error of %d bytes repeats the URL", tt.name, len(err.Error()))
		default:
			t.Logf("%s: %.200v", tt.name, err)
		}
	}
	if n := longest.Load(); n > ident.MaxURLBytes {
		t.Errorf("a URL of %d bytes was requested", n)
	}

	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ok.html"), []byte(okHTML), 0o644); err != nil {
			t.Fatal(err)
		}
		long := "https://cap.example.org/landing/" + strings.Repeat("a", issueLocationBytes-len("https://cap.example.org/landing/"))
		var manifest bytes.Buffer
		for _, e := range []ManifestEntry{
			{URL: "https://cap.example.org/long", Status: http.StatusMovedPermanently, Headers: map[string]string{"Location": long}},
			{URL: long, ContentType: "text/html", File: "ok.html"},
		} {
			line, _ := json.Marshal(e)
			manifest.Write(append(line, '\n'))
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		cfg.ReplayDir = dir
		_, err := newFetcher(t, cfg).Fetch(context.Background(), "https://cap.example.org/long")
		var pe *PermanentError
		if !errors.As(err, &pe) || pe.Reason != ReasonRedirectURLTooLong {
			t.Fatalf("replayed Location of %d bytes: %.300v; want permanent %s", len(long), err, ReasonRedirectURLTooLong)
		}
		t.Logf("replayed Location of %d bytes: %.200v", len(long), err)
	})
}
