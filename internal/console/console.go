// Package console is the reviewers' console: server-rendered pages under
// /ui/ of the API process (`worker api`) where a person of an organization
// follows its tasks, clicks a claim through to the exact words of the exact
// page version that back it (seed 003), and reviews sources — level,
// block, unblock, claim reject and restore, edge correction, each with a
// reason and an audit list (seed 002 §4).
//
// A person logs in with one of the organization's API tokens; the console
// then holds a browser session (internal/apitoken's, an HttpOnly,
// SameSite=Strict cookie, Secure over TLS) and every page is the token's
// organization's: another organization's ids answer 404. Every
// state-changing request carries the session's form token and passes the
// browser guard (internal/browsersafe: Origin and Sec-Fetch-Site); every
// page is sent with a Content-Security-Policy that allows no inline script.
// Every action goes through the same service operations as the CLI and the
// API (internal/service).
package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/browsersafe"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// Options configure the console.
type Options struct {
	Service      *service.Service
	Authenticate api.Authenticate // checks the token a person logs in with
	Sessions     api.Sessions     // keeps their browser sessions
	// Failures bound the refused tokens of each client address, shared
	// with the API's other surfaces (nil: no bound).
	Failures *api.Failures
	Logger   *slog.Logger
	// TrustProxy: X-Forwarded-Proto and X-Forwarded-Host stand for the
	// request's scheme and host (api.Options.TrustProxy).
	TrustProxy bool
	// RiverUI: River UI is served at /riverui/; a task's jobs link to it
	// (for operators: River UI takes operator tokens only).
	RiverUI bool
	// Poll is how often a task page's live progress is read (2s when 0),
	// and StreamFor how long one progress stream lasts before the page
	// reconnects (10 minutes when 0).
	Poll, StreamFor time.Duration
}

const (
	// Path is where the console is served.
	Path      = "/ui/"
	loginPath = Path + "login"
	// sessionCookie holds the console's session secret.
	sessionCookie = "evf_session"
	// maxFormBody bounds every form the console takes: a citation text
	// (the service bounds it again) and reasons.
	maxFormBody = 256 << 10
)

// contentSecurityPolicy is every console page's: its own script and
// styles, nothing inline, nothing from elsewhere, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// console serves the pages.
type console struct {
	opts    Options
	browser *browsersafe.Guard
}

// route is one console route: its method and pattern (net/http's), and
// whether it is served without a session (the login form, assets).
type route struct {
	Method, Pattern string
	Public          bool
	handle          func(c *console, w http.ResponseWriter, r *http.Request, p *person)
}

// Route is a route as the router walk sees it.
type Route struct {
	Method, Pattern string
	Public          bool
}

// Routes lists the console's routes.
func Routes() []Route {
	out := make([]Route, len(routes))
	for i, r := range routes {
		out[i] = Route{Method: r.Method, Pattern: r.Pattern, Public: r.Public}
	}
	return out
}

// StateChanging reports whether a request of the method changes state
// (and must carry the session's form token).
func StateChanging(method string) bool {
	return method != http.MethodGet && method != http.MethodHead
}

// Handler serves the console under Path.
func Handler(opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.StreamFor <= 0 {
		opts.StreamFor = 10 * time.Minute
	}
	c := &console{opts: opts, browser: browsersafe.New(opts.TrustProxy, sessionCookie)}
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.Handle(rt.Method+" "+rt.Pattern, c.serve(rt))
	}
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		c.errorPage(w, r, nil, http.StatusNotFound, "There is no such page.")
	})
	return c.browser.Handler(headers(mux))
}

// headers sets what every console answer carries.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// person is who is logged in: the session's token and organization, and
// the form token the session's forms carry.
type person struct {
	caller    api.Caller
	formToken string
}

// Org is the person's organization.
func (p *person) Org() string { return p.caller.Org }

// Actor is how the person's changes are recorded: the token's id and name,
// as the API records a reviewer.
func (p *person) Actor() string {
	by := "console: api token " + itoa(p.caller.TokenID)
	if p.caller.Name != "" {
		by += " (" + p.caller.Name + ")"
	}
	return by
}

// serve checks a route's request: a session for every route that is not
// public (a browser is sent to the login form), and the session's form
// token for every state-changing one.
func (c *console) serve(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.Public {
			rt.handle(c, w, r, nil)
			return
		}
		p, ok := c.session(w, r)
		if !ok {
			return
		}
		if StateChanging(r.Method) {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
			if err := r.ParseForm(); err != nil {
				c.errorPage(w, r, p, http.StatusRequestEntityTooLarge, "The form could not be read (at most 256 KB).")
				return
			}
			if !hmac.Equal([]byte(r.PostFormValue(browsersafe.FormTokenField)), []byte(p.formToken)) {
				c.errorPage(w, r, p, http.StatusForbidden, "The form was not this session's (it expired, or another site sent it); go back, reload and try again.")
				return
			}
		}
		rt.handle(c, w, r, p)
	})
}

// session is the request's person, or false when it answered: the login
// form for a page request without a live session, 401 otherwise.
func (c *console) session(w http.ResponseWriter, r *http.Request) (*person, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || c.opts.Sessions == nil {
		c.toLogin(w, r)
		return nil, false
	}
	caller, err := c.opts.Sessions.Caller(r.Context(), ck.Value)
	switch {
	case errors.Is(err, api.ErrUnauthenticated):
		c.clearSession(w, r)
		c.toLogin(w, r)
		return nil, false
	case err != nil:
		c.opts.Logger.ErrorContext(r.Context(), "console: session check failed", "err", err)
		c.errorPage(w, r, nil, http.StatusServiceUnavailable, "The session store cannot be reached; retry later.")
		return nil, false
	case caller.Operator || caller.Org == "":
		c.clearSession(w, r)
		c.toLogin(w, r)
		return nil, false
	}
	return &person{caller: caller, formToken: formToken(ck.Value)}, true
}

// formToken is the form token of a session: an HMAC of its secret, which
// only this site's pages carry (the cookie is HttpOnly and SameSite).
func formToken(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("evidencefleet console form token"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// toLogin sends a browser's page request to the login form and answers
// anything else 401.
func (c *console) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		http.Redirect(w, r, loginPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	c.errorPage(w, r, nil, http.StatusUnauthorized, "Your session ended; log in again.")
}

// clearSession tells the browser to forget its session cookie.
func (c *console) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: Path, MaxAge: -1,
		HttpOnly: true, Secure: c.browser.Secure(r), SameSite: http.SameSiteStrictMode})
}

// closeSession ends the session of the request's cookie, if any.
func (c *console) closeSession(ctx context.Context, r *http.Request) {
	if ck, err := r.Cookie(sessionCookie); err == nil && c.opts.Sessions != nil {
		if err := c.opts.Sessions.Close(ctx, ck.Value); err != nil {
			c.opts.Logger.ErrorContext(ctx, "console: close session failed", "err", err)
		}
	}
}
