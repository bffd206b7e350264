package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/console"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// server is an API process with the console on a database: tokens of two
// organizations and an operator's.
type server struct {
	t                 *testing.T
	base              string
	pool              *pgxpool.Pool
	st                *store.Store
	org, other, opTok string // token secrets: test-org's, other-org's, an operator's
}

// startServer serves the console (and River UI) on pool, or on a fresh
// database when pool is nil.
func startServer(t *testing.T, pool *pgxpool.Pool) *server {
	t.Helper()
	if pool == nil {
		pool = pgtest.Pool(t)
	}
	ctx := context.Background()
	s := &server{t: t, pool: pool, st: store.NewStore(pool)}
	var err error
	if s.org, _, err = apitoken.Issue(ctx, s.st, apitoken.Organization, "test-org", "desk-alice"); err != nil {
		t.Fatal(err)
	}
	if s.other, _, err = apitoken.Issue(ctx, s.st, apitoken.Organization, "other-org", "desk-bob"); err != nil {
		t.Fatal(err)
	}
	if s.opTok, _, err = apitoken.Issue(ctx, s.st, apitoken.Operator, "", "ops"); err != nil {
		t.Fatal(err)
	}
	srv, err := apiserver.New(pool, apiserver.Options{Console: true, RiverUI: true})
	if err != nil {
		t.Fatal(err)
	}
	uiCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	if err := srv.Start(uiCtx); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	s.base = ts.URL
	return s
}

// client is an HTTP client that keeps cookies and follows no redirect,
// sending what a browser's same-origin form sends.
type client struct {
	t      *testing.T
	s      *server
	client *http.Client
	csrf   string // the session's form token, read from its last page
}

func (s *server) client() *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	return &client{t: s.t, s: s, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// hiddenCSRF reads a page's form token.
var hiddenCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends a request; a form is posted with Origin of the site itself
// unless origin says another.
func (b *client) do(method, path string, form url.Values, origin string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.s.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", origin)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	if m := hiddenCSRF.FindSubmatch(page); m != nil {
		b.csrf = string(m[1])
	}
	return resp, string(page)
}

func (b *client) get(path string) (*http.Response, string) {
	return b.do(http.MethodGet, path, nil, "")
}

// post posts a form of the site's own, with the session's form token.
func (b *client) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf)
	return b.do(http.MethodPost, path, form, b.s.base)
}

// login logs in with token through the login form: the answer's status.
func (b *client) login(token string) int {
	b.t.Helper()
	b.get("/ui/login")
	resp, _ := b.post("/ui/login", url.Values{"token": {token}})
	if resp.StatusCode == http.StatusSeeOther {
		b.get("/ui/") // a page of the session, for its form token
	}
	return resp.StatusCode
}

// concrete fills a route pattern's wildcards with ids.
func concrete(pattern string) string {
	p := strings.NewReplacer("{$}", "", "{task_id}", "1", "{claim_id}", "1", "{edge_id}", "1", "{evidence_no}", "E1").Replace(pattern)
	if strings.HasSuffix(p, "static/") {
		p += "console.css"
	}
	return p
}

// TestEveryRouteAsksForASession walks the console's router: every route
// not public sends a browser without a session to the login form (a page)
// or answers 401 (a form); every state-changing route refuses a form
// without the session's form token, and one from another origin; the
// public ones are the login form and the assets.
func TestEveryRouteAsksForASession(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	anon := s.client()
	in := s.client()
	if status := in.login(s.org); status != http.StatusSeeOther {
		t.Fatalf("login: %d, want 303", status)
	}
	public := 0
	for _, rt := range console.Routes() {
		path := concrete(rt.Pattern)
		name := rt.Method + " " + rt.Pattern
		if rt.Public {
			public++
			if rt.Method == http.MethodGet {
				if resp, _ := anon.get(path); resp.StatusCode != http.StatusOK {
					t.Errorf("%s without a session: %d, want 200 (public)", name, resp.StatusCode)
				}
			}
			continue
		}
		if console.StateChanging(rt.Method) {
			resp, _ := anon.do(rt.Method, path, url.Values{"csrf": {"x"}}, s.base)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s without a session: %d, want 401", name, resp.StatusCode)
			}
			if resp, _ := in.do(rt.Method, path, url.Values{"reason": {"r"}}, s.base); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s with a session but no form token: %d, want 403", name, resp.StatusCode)
			}
			if resp, _ := in.do(rt.Method, path, url.Values{"reason": {"r"}, "csrf": {"forged"}}, s.base); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s with a session and a forged form token: %d, want 403", name, resp.StatusCode)
			}
			if resp, _ := in.do(rt.Method, path, url.Values{"reason": {"r"}, "csrf": {in.csrf}}, "https://evil.example"); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s from another origin with the session's form token: %d, want 403", name, resp.StatusCode)
			}
			continue
		}
		resp, _ := anon.get(path)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/ui/login?next=") {
			t.Errorf("%s without a session: %d to %q, want 303 to the login form", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if public != 3 {
		t.Errorf("%d public routes, want 3: the login form, its post and the assets", public)
	}
}

// TestLogin: an organization's token logs in and gets a session cookie
// that is HttpOnly, SameSite=Strict and scoped to /ui/; a wrong token and
// an operator's do not; a login form without its form token is refused;
// the logout ends the session; every page carries a policy that allows no
// inline script.
func TestLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	b := s.client()
	if status := b.login("evf_not_a_token"); status != http.StatusUnauthorized {
		t.Errorf("login with a wrong token: %d, want 401", status)
	}
	if status := b.login(s.opTok); status != http.StatusForbidden {
		t.Errorf("login with an operator token: %d, want 403", status)
	}
	// a login form posted without the form token of the page (another site's form)
	if resp, _ := b.do(http.MethodPost, "/ui/login", url.Values{"token": {s.org}}, s.base); resp.StatusCode != http.StatusForbidden {
		t.Errorf("login without the page's form token: %d, want 403", resp.StatusCode)
	}
	b.get("/ui/login")
	resp, _ := b.post("/ui/login", url.Values{"token": {s.org}, "next": {"https://evil.example/"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("login: %d to %q, want 303 to /ui/ (never another site)", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "evf_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/ui/" || session.Secure {
		t.Errorf("session cookie %+v, want HttpOnly, SameSite=Strict, Path=/ui/, not Secure over plain HTTP", session)
	}
	resp, page := b.get("/ui/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "test-org") {
		t.Fatalf("the task list after login: %d\n%.500s", resp.StatusCode, page)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q: want script-src 'self', no unsafe-inline, frame-ancestors 'none'", csp)
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, " on"+"click=") {
		t.Errorf("the page has inline script")
	}
	if resp, _ := b.post("/ui/logout", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("logout: %d, want 303", resp.StatusCode)
	}
	if resp, _ := b.get("/ui/"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the task list after logout: %d, want 303 to the login form", resp.StatusCode)
	}
}

// TestPagesStayUnderOneMegabyte: at 1,000 claims a task and 600 edges into
// one claim, no console page passes 1 MB (claims are paged, a claim's
// evidence is bounded per relation, a span is shown in a window of its
// version).
func TestPagesStayUnderOneMegabyte(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	task := orgTask(t, pool, "Glaciers are retreating worldwide.")
	fragments := make([]string, 600)
	for i := range fragments {
		fragments[i] = fmt.Sprintf("Passage %d: ", i) + strings.Repeat("glaciers retreat as temperatures rise — ", 14)
	}
	page := fixture.PageOf(t, pool, task, "https://long.example.org/report", fragments...)
	var heavy int64
	for i := range 1000 {
		text := fmt.Sprintf("Claim %d: ", i) + strings.Repeat("the glacier lost mass in the decade ", 8)
		if i%2 == 0 {
			fixture.Claim(t, pool, task, text)
			continue
		}
		id := fixture.ExtractedClaim(t, pool, task, page, i/2, text) // one claim a fragment
		if heavy == 0 {
			heavy = id
		}
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence, nli_model)
		SELECT 'fragment', f, 'claim', $2, (ARRAY['supports', 'refutes', 'neutral'])[1 + n % 3], 0.9, 'fixture'
		FROM unnest($1::bigint[]) WITH ORDINALITY AS u(f, n)
		ON CONFLICT DO NOTHING`, page.Fragments, heavy); err != nil {
		t.Fatal(err)
	}
	var edge int64
	if err := pool.QueryRow(ctx, `SELECT id FROM edges WHERE target_id = $1 AND relation = 'supports' ORDER BY id LIMIT 1`, heavy).Scan(&edge); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, pool)
	b := s.client()
	if status := b.login(s.org); status != http.StatusSeeOther {
		t.Fatalf("login: %d", status)
	}
	for _, path := range []string{"/ui/", fmt.Sprintf("/ui/tasks/%d", task), fmt.Sprintf("/ui/tasks/%d?after=900", task),
		fmt.Sprintf("/ui/claims/%d", heavy), fmt.Sprintf("/ui/edges/%d", edge), "/ui/sources", "/ui/audit", fmt.Sprintf("/ui/tasks/%d/jobs", task)} {
		resp, body := b.get(path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d\n%.300s", path, resp.StatusCode, body)
		}
		if len(body) > 1<<20 {
			t.Errorf("%s is %d bytes, more than 1 MB", path, len(body))
		}
		t.Logf("%s: %d bytes", path, len(body))
	}
}

// TestTaskActions: a task is paused, resumed and stopped from its page
// (the stop only once confirmed); its progress stream then sends the
// stopped task's numbers and ends; a pasted text's citations are checked,
// each id of the task a link to its claim and one it lacks marked; a
// filter value the console does not know is refused naming it.
func TestTaskActions(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	task := orgTask(t, pool, "Glaciers are retreating worldwide.")
	e1 := fixture.Claim(t, pool, task, "Glaciers are retreating worldwide.")
	s := startServer(t, pool)
	b := s.client()
	if status := b.login(s.org); status != http.StatusSeeOther {
		t.Fatalf("login: %d", status)
	}
	taskPath := fmt.Sprintf("/ui/tasks/%d", task)
	status := func() string {
		var st string
		if err := pool.QueryRow(ctx, `SELECT status FROM tasks WHERE id = $1`, task).Scan(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, step := range []struct{ action, want string }{{"pause", "paused"}, {"resume", "active"}} {
		b.get(taskPath)
		if resp, _ := b.post(taskPath+"/"+step.action, nil); resp.StatusCode != http.StatusSeeOther || status() != step.want {
			t.Errorf("%s: %d, task %s, want 303 and %s", step.action, resp.StatusCode, status(), step.want)
		}
	}
	b.get(taskPath + "/stop")
	if resp, _ := b.post(taskPath+"/stop", nil); resp.StatusCode != http.StatusBadRequest || status() != "active" {
		t.Errorf("an unconfirmed stop: %d, task %s, want 400 and still active", resp.StatusCode, status())
	}
	if resp, _ := b.post(taskPath+"/stop", url.Values{"confirm": {"stop"}}); resp.StatusCode != http.StatusSeeOther || status() != "stopped" {
		t.Errorf("a confirmed stop: %d, task %s, want 303 and stopped", resp.StatusCode, status())
	}
	resp, stream := b.get(taskPath + "/progress")
	if resp.Header.Get("Content-Type") != "text/event-stream" || strings.Count(stream, "event: progress") != 1 ||
		!strings.Contains(stream, `"status":"stopped"`) || !strings.Contains(stream, `"claims":1`) {
		t.Errorf("the stopped task's progress stream (%s): %q, want one progress event with its numbers, then its end", resp.Header.Get("Content-Type"), stream)
	}

	b.get(taskPath + "/cite")
	_, page := b.post(taskPath+"/cite", url.Values{"text": {"Glaciers retreat [E1]. Sea ice thins [E1, E99]."}})
	if !strings.Contains(page, fmt.Sprintf(`<a href="/ui/tasks/%d/evidence/E1">E1</a>`, task)) || !strings.Contains(page, `<mark class="invalid" title="task `) {
		t.Errorf("the checked text does not link E1 and mark E99:\n%s", page)
	}
	if resp, _ := b.get(fmt.Sprintf("/ui/tasks/%d/evidence/E1", task)); resp.Header.Get("Location") != fmt.Sprintf("/ui/claims/%d", e1) {
		t.Errorf("E1's link goes to %q, want its claim %d", resp.Header.Get("Location"), e1)
	}
	if resp, page := b.get(taskPath + "?verdict=maybe"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "verdict") {
		t.Errorf("an unknown verdict filter: %d, want 400 naming verdict", resp.StatusCode)
	}
}

// orgTask is a fixture task of test-org, whose token the server's client
// logs in with.
func orgTask(t *testing.T, pool *pgxpool.Pool, hypothesis string) int64 {
	t.Helper()
	task := fixture.Task(t, pool, hypothesis)
	if _, err := pool.Exec(context.Background(), `UPDATE tasks SET organization_id = 'test-org' WHERE id = $1`, task); err != nil {
		t.Fatal(err)
	}
	return task
}

// TestClaimShowsItsRecheck: a claim's page says what the latest recheck
// of its quote found — for an edited span, the page's new text around
// where it stood — and says nothing of one before any recheck.
func TestClaimShowsItsRecheck(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	task := orgTask(t, pool, "Glaciers are losing ice.")
	const quote = "The glacier lost 3 percent of its ice in 2022."
	p := fixture.PageOf(t, pool, task, "https://example.org/glacier", quote)
	claim := fixture.ExtractedClaim(t, pool, task, p, 0, quote)
	s := startServer(t, pool)
	b := s.client()
	if status := b.login(s.org); status != http.StatusSeeOther {
		t.Fatalf("login: %d", status)
	}
	path := fmt.Sprintf("/ui/claims/%d", claim)
	if _, body := b.get(path); strings.Contains(body, `id="recheck"`) {
		t.Errorf("a claim never rechecked shows a recheck")
	}
	fixture.EditedRecheck(t, pool, task, p, 0, "The glacier lost 2 percent of its ice in 2022 & more.")
	_, body := b.get(path)
	for _, want := range []string{`id="recheck"`, "<strong>edited</strong>", "the page now says: <q>The glacier lost 2 percent of its ice in 2022 &amp; more.</q>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the claim page lacks %q", want)
		}
	}
}
