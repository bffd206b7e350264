package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// riverUI is an API server with River UI on a fresh database: an operator
// token, an organization's token and one job to act on.
type riverUI struct {
	t        *testing.T
	pool     *pgxpool.Pool
	st       *store.Store
	base     string
	operator string
	opToken  int64
	org      string
	job      int64
}

type probeArgs struct{}

func (probeArgs) Kind() string { return "riverui_probe" }

func startRiverUI(t *testing.T, opts apiserver.Options) *riverUI {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	st := store.NewStore(pool)
	u := &riverUI{t: t, pool: pool, st: st}
	var tok apitoken.Token
	var err error
	if u.operator, tok, err = apitoken.Issue(ctx, st, apitoken.Operator, "", "ops"); err != nil {
		t.Fatal(err)
	}
	u.opToken = tok.ID
	if u.org, _, err = apitoken.Issue(ctx, st, apitoken.Organization, "acme", "acme"); err != nil {
		t.Fatal(err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Insert(ctx, probeArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u.job = res.Job.ID
	opts.RiverUI = true
	srv, err := apiserver.New(pool, opts)
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
	u.base = ts.URL
	return u
}

// send sends a request with the headers given ("Cookie" among them) and
// follows no redirect.
func (u *riverUI) send(method, path, body string, header map[string]string) (*http.Response, string) {
	u.t.Helper()
	req, err := http.NewRequest(method, u.base+path, strings.NewReader(body))
	if err != nil {
		u.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		u.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, string(data)
}

// deleteJob is the issue's request: River UI's job delete with a text/plain
// body (which a form on any page can send) and the headers given.
func (u *riverUI) deleteJob(header map[string]string) *http.Response {
	u.t.Helper()
	h := map[string]string{"Content-Type": "text/plain"}
	for k, v := range header {
		h[k] = v
	}
	resp, _ := u.send(http.MethodPost, "/riverui/api/jobs/delete", `{"ids":["`+strconv.FormatInt(u.job, 10)+`"],"x":"="}`, h)
	return resp
}

func (u *riverUI) jobExists() bool {
	u.t.Helper()
	var n int
	if err := u.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE id = $1`, u.job).Scan(&n); err != nil {
		u.t.Fatal(err)
	}
	return n == 1
}

var formTokenRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// form gets a login or logout page: its form token and the cookie that
// goes with it.
func (u *riverUI) form(path string, header map[string]string) (token string, cookie *http.Cookie) {
	u.t.Helper()
	resp, page := u.send(http.MethodGet, path, "", header)
	m := formTokenRE.FindStringSubmatch(page)
	for _, c := range resp.Cookies() {
		if c.Name == "evf_form_token" {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusOK || m == nil || cookie == nil || cookie.Value != m[1] {
		u.t.Fatalf("GET %s: %d, form token %v, cookie %+v: %s", path, resp.StatusCode, m, cookie, page)
	}
	return m[1], cookie
}

// login posts the login form from this site's own page with secret: the
// answer and the session cookie it set (nil when none).
func (u *riverUI) login(secret string, header map[string]string) (*http.Response, *http.Cookie) {
	u.t.Helper()
	token, formCookie := u.form("/riverui/login", header)
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": u.base, "Sec-Fetch-Site": "same-origin",
		"Cookie": formCookie.String()}
	for k, v := range header {
		h[k] = v
	}
	resp, _ := u.send(http.MethodPost, "/riverui/login", url.Values{"csrf": {token}, "token": {secret}}.Encode(), h)
	for _, c := range resp.Cookies() {
		if c.Name == "evf_operator_session" && c.MaxAge > 0 {
			return resp, c
		}
	}
	return resp, nil
}

func (u *riverUI) mustLogin() *http.Cookie {
	u.t.Helper()
	resp, session := u.login(u.operator, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/riverui/" || session == nil {
		u.t.Fatalf("login with the operator token: %d %q, session %+v", resp.StatusCode, resp.Header.Get("Location"), session)
	}
	return session
}

// sameOrigin are the headers a browser sends with a request of River UI's
// own page.
func (u *riverUI) sameOrigin(session *http.Cookie) map[string]string {
	return map[string]string{"Origin": u.base, "Sec-Fetch-Site": "same-origin", "Cookie": session.String()}
}

// TestRiverUIRefusesTheIssuesCrossOriginDelete is issue 43's request as
// sent: the operator's credentials (which a browser that logged in with
// Basic attaches by itself), Origin https://evil.example, a text/plain
// body. The job must survive. (On the code before the browser guard it
// answered 200 and the job was gone.)
func TestRiverUIRefusesTheIssuesCrossOriginDelete(t *testing.T) {
	t.Parallel()
	u := startRiverUI(t, apiserver.Options{})
	req, err := http.NewRequest(http.MethodPost, u.base+"/riverui/api/jobs/delete",
		strings.NewReader(`{"ids":["`+strconv.FormatInt(u.job, 10)+`"],"x":"="}`))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("operator", u.operator)
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin delete: %d %s, want 403", resp.StatusCode, data)
	}
	if !u.jobExists() {
		t.Fatalf("job %d was deleted by a cross-origin request", u.job)
	}
}

// TestRiverUISameOriginOnly: with an operator's session cookie, River UI's
// job delete is refused from another origin (Origin, Sec-Fetch-Site
// cross-site or same-site, or neither header) and works from its own page;
// a program with a bearer token and neither header works too; HTTP Basic
// no longer authenticates.
func TestRiverUISameOriginOnly(t *testing.T) {
	t.Parallel()
	u := startRiverUI(t, apiserver.Options{})
	session := u.mustLogin()
	refused := []map[string]string{
		{"Origin": "https://evil.example", "Cookie": session.String()},
		{"Sec-Fetch-Site": "cross-site", "Cookie": session.String()},
		{"Sec-Fetch-Site": "same-site", "Origin": "https://sub." + strings.TrimPrefix(u.base, "http://"), "Cookie": session.String()},
		{"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer " + u.operator},
		{"Cookie": session.String()}, // a browser's request naming no origin
	}
	for _, h := range refused {
		if resp := u.deleteJob(h); resp.StatusCode != http.StatusForbidden {
			t.Errorf("delete with %v: %d, want 403", h, resp.StatusCode)
		}
	}
	if !u.jobExists() {
		t.Fatalf("job %d was deleted by a refused request", u.job)
	}
	basic := "Basic " + basicCredentials("operator", u.operator)
	if resp := u.deleteJob(map[string]string{"Origin": u.base, "Sec-Fetch-Site": "same-origin", "Authorization": basic}); resp.StatusCode != http.StatusUnauthorized ||
		strings.Contains(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("same-origin delete with Basic credentials: %d %q, want 401 not asking for Basic", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if !u.jobExists() {
		t.Fatalf("job %d was deleted with Basic credentials", u.job)
	}
	if resp := u.deleteJob(u.sameOrigin(session)); resp.StatusCode != http.StatusOK || u.jobExists() {
		t.Fatalf("same-origin delete with the session: %d, job still there %v; want 200 and the job gone", resp.StatusCode, u.jobExists())
	}
	resp, body := u.send(http.MethodPost, "/riverui/api/jobs/retry", `{"ids":["1"]}`, map[string]string{"Authorization": "Bearer " + u.operator, "Content-Type": "application/json"})
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
		t.Errorf("a program's POST with a bearer token: %d %s, want it let through", resp.StatusCode, body)
	}
}

func basicCredentials(user, password string) string {
	req, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
	req.SetBasicAuth(user, password)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestRiverUILogin: a browser without credentials is sent to the login
// form (no Basic dialog); an operator token logs in with an HttpOnly,
// SameSite=Strict session cookie for /riverui/; the form needs its page's
// token and its own origin; an organization's or an unknown token does
// not log in; logout ends the session.
func TestRiverUILogin(t *testing.T) {
	t.Parallel()
	u := startRiverUI(t, apiserver.Options{})
	resp, _ := u.send(http.MethodGet, "/riverui/", "", map[string]string{"Authorization": "Basic " + basicCredentials("operator", u.operator)})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/riverui/login" || resp.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("River UI's page without a session: %d %q %q, want 303 to /riverui/login, no WWW-Authenticate", resp.StatusCode,
			resp.Header.Get("Location"), resp.Header.Get("WWW-Authenticate"))
	}
	if resp, _ := u.send(http.MethodGet, "/riverui/api/jobs", "", nil); resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("River UI's API without credentials: %d %q, want 401 Bearer", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	session := u.mustLogin()
	if !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/riverui/" || session.Secure {
		t.Errorf("session cookie %+v, want HttpOnly, SameSite=Strict, path /riverui/, not Secure over http", session)
	}
	resp, page := u.send(http.MethodGet, "/riverui/", "", map[string]string{"Cookie": session.String()})
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("River UI with the session: %d %s", resp.StatusCode, page)
	}
	if resp, body := u.send(http.MethodGet, "/riverui/api/jobs?state=available", "", map[string]string{"Cookie": session.String()}); resp.StatusCode != http.StatusOK ||
		!strings.Contains(body, strconv.FormatInt(u.job, 10)) {
		t.Errorf("River UI's job list with the session: %d %s", resp.StatusCode, body)
	}

	if resp, cookie := u.login(u.org, nil); resp.StatusCode != http.StatusForbidden || cookie != nil {
		t.Errorf("login with an organization's token: %d, session %+v; want 403, none", resp.StatusCode, cookie)
	}
	if resp, cookie := u.login("evf_op_"+strings.Repeat("A", 43), nil); resp.StatusCode != http.StatusUnauthorized || cookie != nil {
		t.Errorf("login with an unknown token: %d, session %+v; want 401, none", resp.StatusCode, cookie)
	}
	token, formCookie := u.form("/riverui/login", nil)
	form := url.Values{"csrf": {token}, "token": {u.operator}}
	for name, h := range map[string]map[string]string{
		"another site's page": {"Origin": "https://evil.example", "Cookie": formCookie.String()},
		"no form token":       {"Origin": u.base, "Sec-Fetch-Site": "same-origin"},
		"another form token":  {"Origin": u.base, "Sec-Fetch-Site": "same-origin", "Cookie": "evf_form_token=" + strings.Repeat("x", 43)},
	} {
		h["Content-Type"] = "application/x-www-form-urlencoded"
		resp, _ := u.send(http.MethodPost, "/riverui/login", form.Encode(), h)
		for _, c := range resp.Cookies() {
			if c.Name == "evf_operator_session" && c.MaxAge > 0 {
				t.Errorf("login from %s set a session", name)
			}
		}
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("login from %s: %d, want 403", name, resp.StatusCode)
		}
	}

	token, formCookie = u.form("/riverui/logout", map[string]string{"Cookie": session.String()})
	resp, _ = u.send(http.MethodPost, "/riverui/logout", url.Values{"csrf": {token}}.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded",
		"Origin": u.base, "Sec-Fetch-Site": "same-origin", "Cookie": session.String() + "; " + formCookie.String()})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/riverui/login" {
		t.Errorf("logout: %d %q, want 303 to the login form", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := u.send(http.MethodGet, "/riverui/api/jobs", "", map[string]string{"Cookie": session.String()}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("River UI with the session after logout: %d, want 401", resp.StatusCode)
	}
}

// TestRiverUISessionEndsWithItsToken: revoking the operator token ends the
// sessions it opened at once, and a session past its expiry is refused.
func TestRiverUISessionEndsWithItsToken(t *testing.T) {
	t.Parallel()
	u := startRiverUI(t, apiserver.Options{})
	ctx := context.Background()
	jobs := func(session *http.Cookie) int {
		resp, _ := u.send(http.MethodGet, "/riverui/api/jobs", "", map[string]string{"Cookie": session.String()})
		return resp.StatusCode
	}
	expiring, revoked := u.mustLogin(), u.mustLogin()
	if jobs(expiring) != http.StatusOK || jobs(revoked) != http.StatusOK {
		t.Fatalf("the sessions do not work before: %d %d", jobs(expiring), jobs(revoked))
	}
	if _, err := u.pool.Exec(ctx, `UPDATE browser_sessions SET created_at = now() - interval '9 hours', expires_at = now() - interval '1 hour'
		WHERE secret_hash = $1`, apitoken.Hash(expiring.Value)); err != nil {
		t.Fatal(err)
	}
	if status := jobs(expiring); status != http.StatusUnauthorized {
		t.Errorf("an expired session: %d, want 401", status)
	}
	if _, _, err := apitoken.Revoke(ctx, u.st, apitoken.Operator, "", u.opToken); err != nil {
		t.Fatal(err)
	}
	if status := jobs(revoked); status != http.StatusUnauthorized {
		t.Errorf("the session of a revoked token: %d, want 401", status)
	}
	resp, _ := u.send(http.MethodGet, "/riverui/", "", map[string]string{"Cookie": revoked.String()})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/riverui/login" {
		t.Errorf("River UI's page with the session of a revoked token: %d %q, want 303 to the login form", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := u.deleteJob(u.sameOrigin(revoked)); resp.StatusCode != http.StatusUnauthorized || !u.jobExists() {
		t.Errorf("same-origin delete with the session of a revoked token: %d, job there %v; want 401, the job kept", resp.StatusCode, u.jobExists())
	}
	if resp, cookie := u.login(u.operator, nil); resp.StatusCode != http.StatusUnauthorized || cookie != nil {
		t.Errorf("login with the revoked token: %d, session %+v; want 401, none", resp.StatusCode, cookie)
	}
}

// TestRiverUIBehindATrustedProxy: with TrustProxy, the scheme and host the
// proxy forwards are the origin a login must come from, and the session
// cookie of an https origin is Secure.
func TestRiverUIBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	u := startRiverUI(t, apiserver.Options{TrustProxy: true})
	proxied := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evf.example", "Origin": "https://evf.example"}
	resp, session := u.login(u.operator, proxied)
	if resp.StatusCode != http.StatusSeeOther || session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Fatalf("login through the proxy: %d, session %+v; want 303 and a Secure, HttpOnly, SameSite=Strict cookie", resp.StatusCode, session)
	}
	h := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evf.example", "Origin": u.base, "Cookie": session.String()}
	if resp := u.deleteJob(h); resp.StatusCode != http.StatusForbidden || !u.jobExists() {
		t.Errorf("delete whose Origin is the backend's address, not the proxy's: %d, want 403", resp.StatusCode)
	}
	h["Origin"], h["Sec-Fetch-Site"] = "https://evf.example", "same-origin"
	if resp := u.deleteJob(h); resp.StatusCode != http.StatusOK || u.jobExists() {
		t.Errorf("same-origin delete through the proxy: %d, want 200 and the job gone", resp.StatusCode)
	}
}
