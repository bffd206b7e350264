// Package browsersafe is the middleware of the API process's browser
// surfaces (River UI under /riverui/, and any later one): a
// state-changing request is served only when it comes from the surface's
// own origin, and no other site may frame its pages. It does not
// authenticate; it keeps a hostile page from using the credentials an
// operator's browser holds (a session cookie) to act for the operator.
//
// A request whose method is not GET, HEAD or OPTIONS is refused (403,
// with the reason as JSON {"message": ...}) unless
//   - net/http.CrossOriginProtection lets it through (Sec-Fetch-Site
//     same-origin or none, or without it an Origin of the request's host),
//   - its Sec-Fetch-Site, when sent, is same-origin,
//   - its Origin, when sent, is exactly the request's own scheme and host,
//   - and it sends at least one of the two when it carries a cookie that
//     authenticates (a browser request that names no origin is not
//     trusted with a session).
//
// A client that is not a browser (curl, a script) sends neither header
// and no cookie, with its token in an Authorization header, which no other
// site can make a browser send; it goes through.
//
// The request's scheme is https when it came over TLS; its host is its
// Host header. Behind a proxy that terminates TLS, set trustProxy: the
// first X-Forwarded-Proto and X-Forwarded-Host then stand for them (the
// proxy must set both, overwriting what a client sent).
package browsersafe

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Guard checks the requests of a browser surface.
type Guard struct {
	trustProxy bool
	cookies    []string
	cop        *http.CrossOriginProtection
}

// New makes a Guard. cookies names the cookies that authenticate a
// browser on the surface (its session cookie).
func New(trustProxy bool, cookies ...string) *Guard {
	return &Guard{trustProxy: trustProxy, cookies: cookies, cop: http.NewCrossOriginProtection()}
}

// Handler serves h the requests Check lets through, and refuses the rest
// with 403. Every answer forbids framing by another site.
func (g *Guard) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		if err := g.Check(r); err != nil {
			Refuse(w, http.StatusForbidden, err.Error())
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Refuse answers status with message as JSON {"message": ...}, the shape
// of River UI's own errors.
func Refuse(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Message string `json:"message"`
	}{message})
}

// Check returns nil when r may be served, else why not.
func (g *Guard) Check(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	scheme, host := g.Scheme(r), g.Host(r)
	checked := r
	if host != r.Host {
		checked = r.WithContext(r.Context()) // CrossOriginProtection compares Origin with Host
		checked.Host = host
	}
	if err := g.cop.Check(checked); err != nil {
		return fmt.Errorf("cross-origin request refused: a %s here must come from this site's own pages (%v)", r.Method, err)
	}
	site := r.Header.Get("Sec-Fetch-Site")
	if site != "" && site != "same-origin" {
		return fmt.Errorf("cross-origin request refused: a %s here must come from this site's own pages (Sec-Fetch-Site: %.40q)", r.Method, site)
	}
	origins := r.Header.Values("Origin")
	switch {
	case len(origins) > 1:
		return fmt.Errorf("cross-origin request refused: more than one Origin")
	case len(origins) == 1:
		if !sameOrigin(origins[0], scheme, host) {
			return fmt.Errorf("cross-origin request refused: Origin %.100q is not %s://%s", origins[0], scheme, host)
		}
	case site == "" && g.carriesCredentials(r):
		return fmt.Errorf("request refused: a %s with a session cookie must send Origin or Sec-Fetch-Site (a browser's own pages do)", r.Method)
	}
	return nil
}

// sameOrigin reports whether the Origin header origin is scheme://host.
func sameOrigin(origin, scheme, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Opaque == "" && u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" &&
		strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, host)
}

func (g *Guard) carriesCredentials(r *http.Request) bool {
	for _, name := range g.cookies {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}

// Scheme is the request's scheme, "https" or "http": X-Forwarded-Proto
// when the guard trusts a proxy and it is one of the two.
func (g *Guard) Scheme(r *http.Request) string {
	if g.trustProxy {
		proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
		switch p := strings.ToLower(strings.TrimSpace(proto)); p {
		case "http", "https":
			return p
		}
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// Host is the request's host (and port): the first X-Forwarded-Host when
// the guard trusts a proxy and it is set, else the Host header.
func (g *Guard) Host(r *http.Request) string {
	if g.trustProxy {
		fwd, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ",")
		if fwd = strings.TrimSpace(fwd); fwd != "" {
			return fwd
		}
	}
	return r.Host
}

// Secure reports whether the surface's cookies should be Secure: the
// request came over https.
func (g *Guard) Secure(r *http.Request) bool { return g.Scheme(r) == "https" }

// FormTokenField is the form field that carries a form token.
const FormTokenField = "csrf"

// formTokenCookie holds the form token a page's form must repeat.
const formTokenCookie = "evf_form_token"

// FormToken sets a new form token for the forms posted under path (an
// HttpOnly, SameSite=Strict cookie lasting an hour) and returns it, to be
// sent back in the form's FormTokenField (a hidden input). A form posted
// with CheckFormToken comes from a page this site served: another site's
// page can neither read the cookie nor set it.
func (g *Guard) FormToken(w http.ResponseWriter, r *http.Request, path string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random form token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: formTokenCookie, Value: token, Path: path, MaxAge: 3600,
		HttpOnly: true, Secure: g.Secure(r), SameSite: http.SameSiteStrictMode})
	return token, nil
}

// CheckFormToken reports whether the posted form's FormTokenField equals
// the form token cookie. Bound the body before calling it (it parses the
// form).
func CheckFormToken(r *http.Request) bool {
	c, err := r.Cookie(formTokenCookie)
	if err != nil || c.Value == "" {
		return false
	}
	sent := r.PostFormValue(FormTokenField)
	return sent != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(c.Value)) == 1
}
