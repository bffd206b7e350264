package console

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/browsersafe"
)

// loginData is what the login page shows.
type loginData struct {
	Message, FormToken, Next string
}

func (c *console) loginPage(w http.ResponseWriter, r *http.Request, _ *person) {
	c.loginForm(w, r, http.StatusOK, "")
}

// loginForm answers the login page with a new form token (the login's
// CSRF guard before a session exists: browsersafe's cookie pair).
func (c *console) loginForm(w http.ResponseWriter, r *http.Request, status int, message string) {
	token, err := c.browser.FormToken(w, r, Path)
	if err != nil {
		c.opts.Logger.ErrorContext(r.Context(), "console: form token failed", "err", err)
		c.errorPage(w, r, nil, http.StatusInternalServerError, "The page cannot be made; retry later.")
		return
	}
	c.render(w, r, nil, status, "login", "Log in", loginData{Message: message, FormToken: token, Next: safeNext(r.FormValue("next"))})
}

// login opens a session for a posted organization token.
func (c *console) login(w http.ResponseWriter, r *http.Request, _ *person) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		c.loginForm(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	if !browsersafe.CheckFormToken(r) {
		c.loginForm(w, r, http.StatusForbidden, "The form expired or was not this page's; try again.")
		return
	}
	if wait, refused := c.opts.Failures.Refused(r); refused {
		w.Header().Set("Retry-After", itoa(int64(wait/time.Second)+1))
		c.loginForm(w, r, http.StatusTooManyRequests, "Too many refused tokens from this address; wait a minute and try again.")
		return
	}
	caller, err := c.opts.Authenticate(r.Context(), strings.TrimSpace(r.PostFormValue("token")))
	switch {
	case errors.Is(err, api.ErrUnauthenticated):
		c.opts.Failures.Failed(r)
		c.loginForm(w, r, http.StatusUnauthorized, "That is not a valid token (it may be revoked or expired).")
		return
	case err != nil:
		c.opts.Logger.ErrorContext(r.Context(), "console: token check failed", "err", err)
		c.loginForm(w, r, http.StatusServiceUnavailable, "The token store cannot be reached; retry later.")
		return
	case caller.Operator:
		c.loginForm(w, r, http.StatusForbidden, "The console shows one organization's work: log in with an organization's token (enqueue org token create). Operators use River UI at /riverui/.")
		return
	}
	secret, expires, err := c.opts.Sessions.Open(r.Context(), caller.TokenID)
	switch {
	case errors.Is(err, api.ErrUnauthenticated):
		c.loginForm(w, r, http.StatusUnauthorized, "That is not a valid token (it may be revoked or expired).")
		return
	case err != nil:
		c.opts.Logger.ErrorContext(r.Context(), "console: open session failed", "err", err)
		c.loginForm(w, r, http.StatusServiceUnavailable, "The session store cannot be reached; retry later.")
		return
	}
	c.closeSession(r.Context(), r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: secret, Path: Path, Expires: expires,
		MaxAge: max(1, int(time.Until(expires).Seconds())), HttpOnly: true, Secure: c.browser.Secure(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// logout ends the session.
func (c *console) logout(w http.ResponseWriter, r *http.Request, _ *person) {
	c.closeSession(r.Context(), r)
	c.clearSession(w, r)
	http.Redirect(w, r, loginPath, http.StatusSeeOther)
}

// safeNext is where to go after the login: a console path, never another
// site (an open redirect), else the task list.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Path) || strings.HasPrefix(next, loginPath) || strings.ContainsAny(next, "\\\r\n") || len(next) > 2000 {
		return Path
	}
	return next
}
