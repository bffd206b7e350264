package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evidencefleet/evidencefleet/internal/harness/browser"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// screenshotsEnv names the directory `make screenshots` has the browser
// test write its pictures to (none when unset).
const screenshotsEnv = "EVF_SCREENSHOTS_DIR"

// TestConsoleInBrowser drives the console in headless Chromium over a task
// the fleet built from the glacier pages (three sites, text with non-ASCII
// characters): log in with the organization's token, open the task, click
// a claim and an edge through to their spans — the highlighted text read
// from the DOM is the page version's substring at the span read from the
// database — block a domain with a reason, see it listed with its actor,
// restore it, see both in the audit list; a form posted from another
// origin is refused; another organization's token sees 404 for the same
// URLs; axe-core finds no serious or critical issue on the task, claim and
// edge pages.
func TestConsoleInBrowser(t *testing.T) {
	t.Parallel()
	browser.AxeScript(t) // skip early without axe-core
	br := browser.Start(t)
	f := testfleet.Start(t, testfleet.Options{Pages: testfleet.GlacierPages()})
	task := f.CreateTask(t, testfleet.GlacierHypothesis, "Glaciers in Norway advanced during the 1990s.")
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetURL, Value: testfleet.GlacierWiki},
		jobs.Target{Kind: jobs.TargetURL, Value: testfleet.GlacierScience}, jobs.Target{Kind: jobs.TargetURL, Value: testfleet.GlacierBlog})
	testfleet.WaitIdle(t, f.Pool, 3*time.Minute)
	s := startServer(t, f.Pool)
	br.TabTimeout = 5 * time.Minute
	ctx := br.Tab(t)
	shots := os.Getenv(screenshotsEnv)
	shoot := func(name string) {
		if shots == "" {
			return
		}
		if err := browser.Screenshot(ctx, filepath.Join(shots, name+".png")); err != nil {
			t.Error(err)
		}
	}
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		defer func() { t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond)) }()
		sctx, cancelStep := context.WithTimeout(ctx, time.Minute)
		defer cancelStep()
		if err := chromedp.Do(sctx, steps...); err != nil {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			at, _ := chromedp.Run(dctx, chromedp.Location())
			page, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
			t.Fatalf("%s: %v (at %s: %.1000s)", what, err, at, page)
		}
	}
	text := func(c context.Context, sel string) string {
		t.Helper()
		s, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	noSeriousIssue := func(page string) {
		t.Helper()
		vs, err := browser.Axe(ctx, t)
		if err != nil {
			t.Fatalf("axe on %s: %v", page, err)
		}
		for _, v := range browser.Serious(vs) {
			t.Errorf("axe on %s: %s", page, v)
		}
	}

	// log in
	run("log in", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), s.org), chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("table")))
	if got := text(ctx, "main"); !strings.Contains(got, fmt.Sprintf("Task %d", task)) {
		t.Fatalf("the task list lacks task %d: %.500s", task, got)
	}
	shoot("tasks")

	// the keyboard: the first Tab reaches the skip link, Enter follows it
	run("the keyboard", chromedp.KeyEvent("\t"))
	if focused := text(ctx, ":focus"); focused != "Skip to content" {
		t.Errorf("the first Tab focuses %q, want the skip link", focused)
	}
	run("the skip link", chromedp.KeyEvent("\r"))
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasSuffix(at, "#main") {
		t.Errorf("Enter on the skip link went to %q %v, want #main", at, err)
	}

	// open the task
	run("open the task", chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/ui/tasks/%d"]`, task))),
		chromedp.WaitVisible(chromedp.CSS("table.claims")))
	noSeriousIssue("the task page")
	shoot("task")

	// click an extracted claim through to its origin span: one whose page
	// has non-ASCII text before it, so that a byte offset would be off
	var claimID, edgeID int64
	var quote, premise string
	if err := f.Pool.QueryRow(context.Background(), `
		SELECT c.id, substring(pv.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start)
		FROM claims c JOIN page_versions pv ON pv.id = c.page_version_id
		WHERE c.task_id = $1 AND c.kind = 'extracted' AND substring(pv.content FOR c.quote_start) ~ '[^\x01-\x7f]'
		ORDER BY c.evidence_no LIMIT 1`, task).Scan(&claimID, &quote); err != nil {
		t.Fatalf("an extracted claim after non-ASCII text (its character and byte offsets differ): %v", err)
	}
	run("click the claim", chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.claims a[href="/ui/claims/%d"]`, claimID))),
		chromedp.WaitVisible(chromedp.CSS("mark#span")))
	if got := text(ctx, "mark#span"); got != quote {
		t.Errorf("the highlighted origin of claim %d is %q, want the version's substring at its span %q", claimID, got, quote)
	}
	noSeriousIssue("the claim page")
	shoot("claim")

	// and an edge into a claim of the task through to its premise's span
	if err := f.Pool.QueryRow(context.Background(), `
		SELECT e.id, substring(pv.content FROM f.start_char + 1 FOR f.end_char - f.start_char)
		FROM edges e JOIN claims c ON c.id = e.target_id JOIN fragments f ON f.id = e.source_id
		JOIN page_versions pv ON pv.id = f.page_version_id
		WHERE c.task_id = $1 AND e.target_type = 'claim' AND e.source_type = 'fragment' AND e.relation IN ('supports', 'refutes', 'neutral')
		ORDER BY e.id LIMIT 1`, task).Scan(&edgeID, &premise); err != nil {
		t.Fatalf("an NLI edge of the task: %v", err)
	}
	run("open the edge", chromedp.Navigate(fmt.Sprintf("%s/ui/edges/%d", s.base, edgeID)), chromedp.WaitVisible(chromedp.CSS("mark#span")))
	if got := text(ctx, "mark#span"); got != premise {
		t.Errorf("the highlighted premise of edge %d is %q, want %q", edgeID, got, premise)
	}
	noSeriousIssue("the edge page")

	// block a domain with a reason, then restore it
	const domain = "blog.example-opinion.com"
	run("block", chromedp.Navigate(s.base+"/ui/sources?domain="+domain), chromedp.WaitVisible(chromedp.CSS("#change-form")),
		chromedp.Click(chromedp.CSS(`#change-form input[value=block]`)),
		chromedp.SendKeys(chromedp.CSS("#change-reason"), "opinion blog, no sources"),
		chromedp.Click(chromedp.CSS("#change-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`[id="blocked-`+domain+`"]`)))
	block := text(ctx, `[id="blocked-`+domain+`"]`)
	for _, want := range []string{"opinion blog, no sources", "desk-alice", "a person's decision", "Unblock risk"} {
		if !strings.Contains(block, want) {
			t.Errorf("the listed block lacks %q: %s", want, block)
		}
	}
	noSeriousIssue("the sources page")
	shoot("sources")
	run("unblock", chromedp.SendKeys(chromedp.CSS(`[id="unblock-`+domain+`"]`), "blocked by mistake"),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`[id="blocked-%s"] button[type=submit]`, domain))),
		chromedp.WaitNotPresent(chromedp.CSS(`[id="blocked-`+domain+`"]`)), chromedp.WaitVisible(chromedp.CSS("#change-form")))
	if blocks, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.block').length`)); err != nil || blocks != 0 {
		t.Errorf("blocks listed after the unblock: %d %v, want 0", blocks, err)
	}
	run("audit", chromedp.Navigate(s.base+"/ui/audit"), chromedp.WaitVisible(chromedp.CSS("table.audit")))
	audit := text(ctx, "table.audit")
	for _, want := range []string{"block", "unblock", "opinion blog, no sources", "blocked by mistake", "desk-alice"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit list lacks %q: %s", want, audit)
		}
	}
	shoot("audit")

	// a form posted from another origin (another port of the same host:
	// the same site, so the session cookie goes with it) is refused
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/ui/sources">
<input name="domain" value="%s"><input name="action" value="block"><input name="reason" value="forged"></form>
<script>document.getElementById('f').submit()</script>`, s.base, domain)
	}))
	t.Cleanup(evil.Close)
	run("a cross-origin post", chromedp.Navigate(evil.URL),
		chromedp.Poll[chromedp.Void](`location.href.startsWith(`+strconv.Quote(s.base)+`) && document.readyState === "complete"`))
	if body := text(ctx, "body"); !strings.Contains(body, "cross-origin request refused") {
		t.Errorf("the cross-origin post was answered %.300q, want its refusal", body)
	}
	var forged int
	if err := f.Pool.QueryRow(context.Background(), `SELECT count(*) FROM domain_level_changes WHERE reason = 'forged'`).Scan(&forged); err != nil || forged != 0 {
		t.Errorf("changes made by the forged post: %d %v, want 0", forged, err)
	}

	// on a phone's width no page is wider than the screen (wide tables
	// scroll inside their box)
	for _, path := range []string{"/ui/", fmt.Sprintf("/ui/tasks/%d", task), fmt.Sprintf("/ui/claims/%d", claimID), "/ui/sources", "/ui/audit"} {
		run("a phone's view of "+path, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.base+path), chromedp.WaitVisible(chromedp.CSS("main")))
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil || wide > 0 {
			culprits, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('body *')).filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map(e => e.tagName + '.' + e.className)`))
			t.Errorf("%s on a 390-pixel screen is %d pixels too wide (%v): %v", path, wide, err, culprits)
		}
	}

	// another organization's person sees 404 for the same URLs
	octx := br.Incognito(t)
	if err := chromedp.Do(octx, chromedp.Navigate(s.base+"/ui/login"), chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), s.other), chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Console"]`))); err != nil {
		t.Fatalf("log in as another organization: %v", err)
	}
	for _, path := range []string{fmt.Sprintf("/ui/tasks/%d", task), fmt.Sprintf("/ui/claims/%d", claimID), fmt.Sprintf("/ui/edges/%d", edgeID),
		fmt.Sprintf("/ui/tasks/%d/jobs", task)} {
		resp, err := chromedp.RunResponse(octx, chromedp.Navigate(s.base+path))
		if err != nil {
			t.Fatalf("%s as another organization: %v", path, err)
		}
		if resp.Status != http.StatusNotFound {
			t.Errorf("%s as another organization: %d, want 404", path, resp.Status)
		}
		if got := text(octx, "main"); strings.Contains(got, testfleet.GlacierHypothesis) || strings.Contains(got, quote) {
			t.Errorf("%s shows another organization's data: %.300s", path, got)
		}
	}
}
