// Package browser drives Debian's headless Chromium from tests through
// chromedp: tabs with shared or isolated cookies, axe-core accessibility
// checks and full-page screenshots.
//
// The browser can reach only loopback (127.0.0.1), so tests serve their
// pages from httptest servers. Without chromium the tests skip, unless
// EVF_REQUIRE_CHROMIUM is set (CI installs it); the same goes for axe-core
// (`make axe`).
package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeouts. Every chromedp context of the package has one, so that a page
// that never answers fails its test rather than hanging it.
const (
	// DefaultTabTimeout bounds the whole life of a tab (Tab, Incognito)
	// unless Browser.TabTimeout says otherwise.
	DefaultTabTimeout = 2 * time.Minute
	// browserTimeout bounds the whole life of a browser.
	browserTimeout = 10 * time.Minute
	// startTimeout bounds the start of chromium and the opening of a tab.
	startTimeout = time.Minute
	// closeTimeout bounds the graceful close of the browser at cleanup.
	closeTimeout = 10 * time.Second
)

// Width and Height are the window size of the browser, in CSS pixels.
const (
	Width  = 1280
	Height = 900
)

// requireEnv, when set, turns the skips for missing tools into failures.
const requireEnv = "EVF_REQUIRE_CHROMIUM"

// Browser is one headless Chromium process with its own fresh profile.
type Browser struct {
	ctx context.Context // the browser's chromedp context (its first tab)
	// TabTimeout bounds the life of each tab opened after it is set
	// (DefaultTabTimeout when zero). Set it before opening tabs from
	// parallel tests.
	TabTimeout time.Duration
}

// Path returns the path of Debian's chromium (chromium or
// chromium-browser on PATH). Without it the test is skipped, or fails
// when EVF_REQUIRE_CHROMIUM is set.
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv(requireEnv) != "" {
		t.Fatal("chromium is not installed (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// Start launches headless Chromium for the test, with a fresh profile
// under t.TempDir(), a 1280x900 window and no host but 127.0.0.1
// resolvable. The browser stops at the test's cleanup.
func Start(t testing.TB) *Browser {
	t.Helper()
	path := Path(t)
	var output syncBuffer
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(Width, Height),
		chromedp.CombinedOutput(&output),
	)
	actx, cancelAlloc := context.WithTimeout(context.Background(), browserTimeout)
	actx, cancelExec := chromedp.NewExecAllocator(actx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	stop := func() error {
		cctx, cancel := context.WithTimeout(ctx, closeTimeout)
		defer cancel()
		err := chromedp.Cancel(cctx) // closes chromium gracefully
		cancelBrowser()
		cancelExec()
		cancelAlloc()
		return err
	}
	// The first run starts chromium and binds its life to ctx, so it
	// cannot carry a timeout of its own: the timer cancels ctx instead.
	timer := time.AfterFunc(startTimeout, cancelBrowser)
	err := chromedp.Do(ctx)
	timer.Stop()
	if err != nil {
		stop()
		t.Fatalf("browser: starting %s: %v\nchromium's output:\n%s", path, err, output.tail(4000))
	}
	t.Cleanup(func() {
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("browser: closing chromium: %v", err)
		}
		if t.Failed() {
			t.Logf("browser: chromium's output:\n%s", output.tail(4000))
		}
	})
	return &Browser{ctx: ctx}
}

// Tab opens a new tab, closed at the test's cleanup. The tabs of one
// Browser share its profile, so its cookies: a cookie ignores the port,
// so every server on 127.0.0.1 gets the cookies of all the others. Use
// Incognito for a separate cookie jar, e.g. to log in as another user.
//
// The tab's context ends after b.TabTimeout; pass it to chromedp.Do or
// chromedp.Run. A child chromedp.NewContext of it opens another tab in
// the same cookie jar.
func (b *Browser) Tab(t testing.TB) context.Context {
	t.Helper()
	return b.open(t)
}

// Incognito opens a tab in a new browser context, like an incognito
// window: its cookies and storage are its own, shared with no other tab
// but those opened from it (chromedp.NewContext of the returned context).
// It is discarded at the test's cleanup.
func (b *Browser) Incognito(t testing.TB) context.Context {
	t.Helper()
	return b.open(t, chromedp.WithNewBrowserContext())
}

func (b *Browser) open(t testing.TB, opts ...chromedp.ContextOption) context.Context {
	t.Helper()
	timeout := b.TabTimeout
	if timeout <= 0 {
		timeout = DefaultTabTimeout
	}
	tctx, cancelTimeout := context.WithTimeout(b.ctx, timeout)
	ctx, cancelTab := chromedp.NewContext(tctx, opts...)
	t.Cleanup(func() {
		cancelTab()
		cancelTimeout()
	})
	// Open the tab now, so that a broken browser fails here, and set its
	// viewport: a new tab does not get the window size of the command line.
	// The first run binds the tab's life to its context, so, as in Start,
	// a timer bounds it.
	timer := time.AfterFunc(startTimeout, cancelTimeout)
	err := chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height))
	timer.Stop()
	if err != nil {
		t.Fatalf("browser: opening a tab: %v", err)
	}
	return ctx
}

// Screenshot writes a full-page PNG of the tab's page to path, creating
// its directory.
func Screenshot(ctx context.Context, path string) error {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}

// Violation is one rule of axe-core that the page breaks.
type Violation struct {
	ID      string   // the rule, e.g. "image-alt"
	Impact  string   // minor, moderate, serious or critical
	Help    string   // what the rule asks for
	HelpURL string   // Deque's page about the rule
	Nodes   []string // the elements that break it: CSS selectors
}

// String is the violation on one line, for a test's failure message.
func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s: %s (%s)", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "), v.HelpURL)
}

// Serious returns the violations of impact serious or critical.
func Serious(vs []Violation) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			out = append(out, v)
		}
	}
	return out
}

// axeScriptPath is axe.min.js relative to the module root, installed
// there by `make axe` (the version is pinned in scripts/axe/package.json).
const axeScriptPath = "scripts/axe/node_modules/axe-core/axe.min.js"

var readAxe = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, axeScriptPath))
	return string(b), err
})

// AxeScript returns the source of axe-core (axe.min.js). Without it the
// test is skipped, or fails when EVF_REQUIRE_CHROMIUM is set. Call it
// before driving the page to skip early.
func AxeScript(t testing.TB) string {
	t.Helper()
	src, err := readAxe()
	if err == nil {
		return src
	}
	msg := fmt.Sprintf("axe-core is not installed (make axe): %v", err)
	if os.Getenv(requireEnv) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// axeRun runs axe on the whole document and reduces its violations to
// Violation's fields.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	ID: v.id, Impact: v.impact || '', Help: v.help, HelpURL: v.helpUrl,
	Nodes: v.nodes.map(n => n.target.flat(Infinity).join(' ')),
})))`

// Axe runs axe-core's checks on the tab's current page, injecting axe-core
// first when the page has none, and returns the violations. It skips the
// test as AxeScript does when axe-core is not installed.
func Axe(ctx context.Context, t testing.TB) ([]Violation, error) {
	t.Helper()
	src := AxeScript(t)
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if err != nil {
		return nil, fmt.Errorf("axe: %w", err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
			return nil, fmt.Errorf("axe: injecting axe.min.js: %w", err)
		}
	}
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("axe: running: %w", err)
	}
	return vs, nil
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's package directory) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// syncBuffer collects the last 64 KiB or more of chromium's output,
// written from chromedp's goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 128<<10 {
		b.buf.Next(b.buf.Len() - 64<<10)
	}
	return b.buf.Write(p)
}

// tail returns the last n bytes written.
func (b *syncBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
