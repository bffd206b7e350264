package browser_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/evidencefleet/evidencefleet/internal/harness/browser"
)

// pages are the test server's pages.
var pages = map[string]string{
	// An unlabelled input and an image without alt: axe-core's label and
	// image-alt rules, both critical.
	"/bad": `<!doctype html><html lang="en"><head><title>Bad</title></head><body><main>
<h1>Bad</h1><form><input type="text" name="q"></form><img src="/pixel.png">
</main></body></html>`,
	"/good": `<!doctype html><html lang="en"><head><title>Good</title></head><body><main>
<h1>Good</h1><form><label for="q">Query</label> <input id="q" type="text" name="q">
<button type="submit">Search</button></form><img src="/pixel.png" alt="A pixel">
</main></body></html>`,
	"/tall": `<!doctype html><html lang="en"><head><title>Tall</title></head><body style="margin:0">
<main style="height:3000px"><h1>Tall</h1></main></body></html>`,
	"/click": `<!doctype html><html lang="en"><head><title>Click</title></head><body><main>
<h1>Click</h1><button id="b" type="button" onclick="document.getElementById('out').textContent = 'clicked ' + (++n)">Click</button>
<p id="out">not clicked</p><script>let n = 0</script>
</main></body></html>`,
}

// server serves pages, and a cookie: /set sets it, /cookie shows the
// Cookie header the browser sent.
func server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	mux.HandleFunc("GET /pixel.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pixelPNG)
	})
	mux.HandleFunc("GET /set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: r.URL.Query().Get("v"), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		fmt.Fprint(w, `<!doctype html><title>Set</title><p id="c">set</p>`)
	})
	mux.HandleFunc("GET /cookie", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Cookie</title><p id="c">[%s]</p>`, r.Header.Get("Cookie"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// pixelPNG is a 1x1 PNG.
var pixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// TestBrowser runs one chromium for its parallel subtests, each in its
// own tab.
func TestBrowser(t *testing.T) {
	t.Parallel()
	b := browser.Start(t)
	srv := server(t)

	t.Run("AxeFindsViolations", func(t *testing.T) {
		t.Parallel()
		browser.AxeScript(t)
		tab := b.Tab(t)
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/bad")); err != nil {
			t.Fatal(err)
		}
		vs, err := browser.Axe(tab, t)
		if err != nil {
			t.Fatal(err)
		}
		serious := browser.Serious(vs)
		var ids []string
		for _, v := range serious {
			ids = append(ids, v.ID)
			if len(v.Nodes) == 0 || v.Help == "" || v.HelpURL == "" {
				t.Errorf("violation without nodes, help or its URL: %+v", v)
			}
		}
		for _, want := range []string{"label", "image-alt"} {
			if !slices.Contains(ids, want) {
				t.Errorf("axe's serious violations %q lack %q; all: %v", ids, want, vs)
			}
		}
		// A second run on the same page reuses the injected axe.
		again, err := browser.Axe(tab, t)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(vs) {
			t.Errorf("second run: %d violations, first %d", len(again), len(vs))
		}
	})

	t.Run("AxeWellFormedPage", func(t *testing.T) {
		t.Parallel()
		browser.AxeScript(t)
		tab := b.Tab(t)
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/good")); err != nil {
			t.Fatal(err)
		}
		vs, err := browser.Axe(tab, t)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range browser.Serious(vs) {
			t.Errorf("serious violation on a well-formed page: %v", v)
		}
	})

	t.Run("ClickAndText", func(t *testing.T) {
		t.Parallel()
		tab := b.Tab(t)
		if err := chromedp.Do(tab,
			chromedp.Navigate(srv.URL+"/click"),
			chromedp.Click(chromedp.CSS("#b")),
			chromedp.Click(chromedp.CSS("#b")),
		); err != nil {
			t.Fatal(err)
		}
		text, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#out")))
		if err != nil {
			t.Fatal(err)
		}
		if text != "clicked 2" {
			t.Errorf("#out = %q after two clicks, want %q", text, "clicked 2")
		}
		width, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if width != browser.Width {
			t.Errorf("window.innerWidth = %d, want %d", width, browser.Width)
		}
	})

	t.Run("Screenshot", func(t *testing.T) {
		t.Parallel()
		tab := b.Tab(t)
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/tall")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "shots", "tall.png")
		if err := browser.Screenshot(tab, path); err != nil {
			t.Fatal(err)
		}
		png, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 24 {
			t.Fatalf("the screenshot (%d bytes) is not a PNG: % x", len(png), png[:min(len(png), 16)])
		}
		// The IHDR chunk's width and height: the whole page, not the window.
		w, h := binary.BigEndian.Uint32(png[16:20]), binary.BigEndian.Uint32(png[20:24])
		if w != browser.Width || h < 3000 {
			t.Errorf("the screenshot is %dx%d, want %d wide and the page's 3000 px high", w, h, browser.Width)
		}
	})

	t.Run("Cookies", func(t *testing.T) {
		t.Parallel()
		// visit opens path in tab and returns the text of its #c.
		visit := func(tab context.Context, path string) string {
			t.Helper()
			if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+path)); err != nil {
				t.Fatal(err)
			}
			text, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#c")))
			if err != nil {
				t.Fatal(err)
			}
			return text
		}
		check := func(who string, tab context.Context, want string) {
			t.Helper()
			if got := visit(tab, "/cookie"); got != want {
				t.Errorf("%s sent the cookies %s, want %s", who, got, want)
			}
		}

		// Two incognito contexts, as two users logged in at once.
		alice, bob := b.Incognito(t), b.Incognito(t)
		visit(alice, "/set?v=alice")
		check("bob's context before his login", bob, "[]")
		visit(bob, "/set?v=bob")
		check("alice's context", alice, "[session=alice]")
		check("bob's context", bob, "[session=bob]")
		// A tab opened from an incognito one shares its cookies.
		alice2, cancel := chromedp.NewContext(alice)
		defer cancel()
		check("alice's second tab", alice2, "[session=alice]")

		// Plain tabs share the browser's profile, apart from both.
		one, two := b.Tab(t), b.Tab(t)
		check("a plain tab", one, "[]")
		visit(one, "/set?v=shared")
		check("another plain tab", two, "[session=shared]")
		check("alice's context after the plain tab's login", alice, "[session=alice]")
	})
}
