package api

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/browsersafe"
)

// Sessions keeps browser sessions: River UI's login form opens one with an
// operator token (and serves operators only), the console's with an
// organization's token; its cookie stands for that token until the
// session expires, its person logs out, or the token is revoked.
type Sessions interface {
	// Open opens a session of token tokenID: its secret (the cookie's
	// value) and when it expires; ErrUnauthenticated when the token is
	// not live.
	Open(ctx context.Context, tokenID int64) (secret string, expires time.Time, err error)
	// Caller is the token of a live session; ErrUnauthenticated for a
	// malformed, unknown or expired session or a revoked token.
	Caller(ctx context.Context, secret string) (Caller, error)
	// Close ends a session (a logout).
	Close(ctx context.Context, secret string) error
}

const (
	// riverUIPath is where River UI is served, and the path of its cookies.
	riverUIPath = "/riverui/"
	loginPath   = riverUIPath + "login"
	logoutPath  = riverUIPath + "logout"
	// sessionCookie holds an operator's session secret.
	sessionCookie = "evf_operator_session"
	// maxLoginBody bounds the login and logout forms.
	maxLoginBody = 4 << 10
)

// operatorSurface serves River UI (ui) under /riverui/ to operators only,
// behind the browser guard (browsersafe): a state-changing request from
// another origin is refused before anything else. An operator is known by
// a bearer token or, with opts.Sessions, by the session cookie set by the
// login form at /riverui/login (logout at /riverui/logout). HTTP Basic is
// not accepted: a browser that once cached it cannot be made to send it
// on another site's behalf.
func operatorSurface(opts Options, fails *Failures, ui http.Handler) http.Handler {
	p := &operatorPages{opts: opts, fails: fails, guard: &guard{opts: opts}, browser: browsersafe.New(opts.TrustProxy, sessionCookie)}
	mux := http.NewServeMux()
	if opts.Sessions != nil {
		mux.HandleFunc("GET "+loginPath, p.loginPage)
		mux.HandleFunc("POST "+loginPath, p.login)
		mux.HandleFunc("GET "+logoutPath, p.logoutPage)
		mux.HandleFunc("POST "+logoutPath, p.logout)
	}
	mux.Handle(riverUIPath, p.operatorOnly(ui))
	return p.browser.Handler(mux)
}

type operatorPages struct {
	opts    Options
	fails   *Failures // refused tokens per client address, as on /v1
	guard   *guard
	browser *browsersafe.Guard
}

// operatorOnly serves h to operators only: 403 for an organization's
// token; without a valid token or session, a browser's page request is
// sent to the login form (303) and anything else is 401.
func (p *operatorPages) operatorOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait, refused := p.fails.Refused(r); refused {
			w.Header().Set("Retry-After", retryAfter(wait))
			browsersafe.Refuse(w, http.StatusTooManyRequests, tooManyFailures)
			return
		}
		caller, status, msg := p.authenticate(r)
		if status == http.StatusUnauthorized && presented(r) {
			p.fails.Failed(r)
		}
		if status == 0 && !caller.Operator {
			status, msg = http.StatusForbidden, "River UI is for operator tokens (enqueue operator token create)"
		}
		if status == http.StatusUnauthorized {
			if _, err := r.Cookie(sessionCookie); err == nil {
				p.clearSession(w, r)
			}
			if p.opts.Sessions != nil && pageRequest(r) {
				http.Redirect(w, r, loginPath, http.StatusSeeOther)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="evidencefleet operators"`)
		}
		if status != 0 {
			browsersafe.Refuse(w, status, msg)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// presented reports whether r carries a credential: a bearer token or a
// session cookie (a refused one counts against its address).
func presented(r *http.Request) bool {
	_, hasBearer := bearer(r.Header.Get("Authorization"))
	_, err := r.Cookie(sessionCookie)
	return hasBearer || err == nil
}

// pageRequest reports whether r is a browser's request for a page (not
// River UI's API, not a program with a bearer token).
func pageRequest(r *http.Request) bool {
	_, hasBearer := bearer(r.Header.Get("Authorization"))
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && !hasBearer &&
		!strings.HasPrefix(r.URL.Path, riverUIPath+"api/")
}

// authenticate knows the caller by its bearer token, else by its session
// cookie: the caller, or the status and message to answer with.
func (p *operatorPages) authenticate(r *http.Request) (Caller, int, string) {
	if secret, ok := bearer(r.Header.Get("Authorization")); ok {
		return p.guard.authenticate(r.Context(), secret)
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || p.opts.Sessions == nil {
		return Caller{}, http.StatusUnauthorized, "an operator is required: log in at " + loginPath + ", or send Authorization: Bearer TOKEN with an operator token (HTTP Basic is not accepted)"
	}
	caller, err := p.opts.Sessions.Caller(r.Context(), c.Value)
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return Caller{}, http.StatusUnauthorized, "the River UI session ended (it expired, was logged out, or its token was revoked): log in again at " + loginPath
	case err != nil:
		p.opts.Logger.Error("api: session check failed", "err", err)
		return Caller{}, http.StatusServiceUnavailable, "the session store cannot be reached; retry later"
	}
	return caller, 0, ""
}

func (p *operatorPages) loginPage(w http.ResponseWriter, r *http.Request) {
	p.form(w, r, http.StatusOK, loginForm, "")
}

// login opens a session for a posted operator token: the form must carry
// the form token its page was served with, and the browser guard has
// checked its origin already.
func (p *operatorPages) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		p.form(w, r, http.StatusBadRequest, loginForm, "The form could not be read.")
		return
	}
	if !browsersafe.CheckFormToken(r) {
		p.form(w, r, http.StatusForbidden, loginForm, "The form expired or was not this page's; try again.")
		return
	}
	if wait, refused := p.fails.Refused(r); refused {
		w.Header().Set("Retry-After", retryAfter(wait))
		p.form(w, r, http.StatusTooManyRequests, loginForm, "Too many refused tokens from this address; wait and try again.")
		return
	}
	caller, status, _ := p.guard.authenticate(r.Context(), strings.TrimSpace(r.PostFormValue("token")))
	switch {
	case status == http.StatusUnauthorized:
		p.fails.Failed(r)
		p.form(w, r, status, loginForm, "That is not a valid operator token.")
		return
	case status != 0:
		p.form(w, r, status, loginForm, "The token store cannot be reached; retry later.")
		return
	case !caller.Operator:
		p.form(w, r, http.StatusForbidden, loginForm, "River UI is for operator tokens; an organization's token cannot log in.")
		return
	}
	secret, expires, err := p.opts.Sessions.Open(r.Context(), caller.TokenID)
	switch {
	case errors.Is(err, ErrUnauthenticated):
		p.form(w, r, http.StatusUnauthorized, loginForm, "That is not a valid operator token.")
		return
	case err != nil:
		p.opts.Logger.Error("api: open session failed", "err", err)
		p.form(w, r, http.StatusServiceUnavailable, loginForm, "The session store cannot be reached; retry later.")
		return
	}
	p.closeSession(r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: secret, Path: riverUIPath, Expires: expires,
		MaxAge: max(1, int(time.Until(expires).Seconds())), HttpOnly: true, Secure: p.browser.Secure(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, riverUIPath, http.StatusSeeOther)
}

func (p *operatorPages) logoutPage(w http.ResponseWriter, r *http.Request) {
	p.form(w, r, http.StatusOK, logoutForm, "")
}

// logout ends the session of the cookie sent with a form of this site.
func (p *operatorPages) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil || !browsersafe.CheckFormToken(r) {
		p.form(w, r, http.StatusForbidden, logoutForm, "The form expired or was not this page's; try again.")
		return
	}
	p.closeSession(r)
	p.clearSession(w, r)
	http.Redirect(w, r, loginPath, http.StatusSeeOther)
}

// closeSession ends the session of the request's cookie, if any.
func (p *operatorPages) closeSession(r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := p.opts.Sessions.Close(r.Context(), c.Value); err != nil {
			p.opts.Logger.Error("api: close session failed", "err", err)
		}
	}
}

// clearSession tells the browser to forget its session cookie.
func (p *operatorPages) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: riverUIPath, MaxAge: -1,
		HttpOnly: true, Secure: p.browser.Secure(r), SameSite: http.SameSiteStrictMode})
}

// formPage is what a login or logout page shows.
type formPage struct {
	Title, Action, Button, Message, Token, TokenField string
	AskToken                                          bool
}

var (
	loginForm  = formPage{Title: "Log in to River UI", Action: loginPath, Button: "Log in", AskToken: true}
	logoutForm = formPage{Title: "Log out of River UI", Action: logoutPath, Button: "Log out"}
)

var formTemplate = template.Must(template.New("form").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}} · evidencefleet</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem;margin:.3rem 0;width:100%;box-sizing:border-box}.msg{color:#a00}</style>
</head><body>
<h1>{{.Title}}</h1>
{{if .Message}}<p class="msg" role="alert">{{.Message}}</p>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="{{.TokenField}}" value="{{.Token}}">
{{if .AskToken}}<label for="token">Operator token (<code>enqueue operator token create</code>)</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>{{end}}
<button type="submit">{{.Button}}</button>
</form>
</body></html>
`))

// form answers a login or logout page with a new form token.
func (p *operatorPages) form(w http.ResponseWriter, r *http.Request, status int, page formPage, message string) {
	token, err := p.browser.FormToken(w, r, riverUIPath)
	if err != nil {
		p.opts.Logger.Error("api: form token failed", "err", err)
		http.Error(w, "the page cannot be made; retry later", http.StatusInternalServerError)
		return
	}
	page.Message, page.Token, page.TokenField = message, token, browsersafe.FormTokenField
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = formTemplate.Execute(w, page)
}
