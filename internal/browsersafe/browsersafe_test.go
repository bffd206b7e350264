package browsersafe_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/browsersafe"
)

const session = "evf_operator_session"

// TestGuard: a state-changing request is served only from the surface's
// own origin; safe methods and programs that send neither Origin nor
// Sec-Fetch-Site nor a session cookie go through.
func TestGuard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		trustProxy bool
		method     string
		header     map[string]string
		cookie     bool
		served     bool
	}{
		{"GET from another site", false, http.MethodGet, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, true, true},
		{"POST with another Origin (text/plain, no Sec-Fetch-Site)", false, http.MethodPost, map[string]string{"Origin": "https://evil.example"}, true, false},
		{"POST Sec-Fetch-Site cross-site", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site"}, true, false},
		{"POST Sec-Fetch-Site same-site", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-site"}, true, false},
		{"POST Sec-Fetch-Site none", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "none"}, true, false},
		{"DELETE with another Origin", false, http.MethodDelete, map[string]string{"Origin": "http://evil.example"}, false, false},
		{"POST Origin null", false, http.MethodPost, map[string]string{"Origin": "null"}, true, false},
		{"POST Origin of the same host, other scheme", false, http.MethodPost, map[string]string{"Origin": "https://api.example"}, true, false},
		{"POST Origin of the same host, other port", false, http.MethodPost, map[string]string{"Origin": "http://api.example:8443"}, true, false},
		{"POST same-origin, both headers", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://api.example"}, true, true},
		{"POST same-origin but a foreign Origin", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example"}, true, false},
		{"POST own Origin, old browser", false, http.MethodPost, map[string]string{"Origin": "http://api.example"}, true, true},
		{"POST with a session cookie and neither header", false, http.MethodPost, nil, true, false},
		{"POST with a bearer token and neither header", false, http.MethodPost, map[string]string{"Authorization": "Bearer evf_op_x"}, false, true},
		{"behind a trusted proxy", true, http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://evf.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evf.example"}, true, true},
		{"behind a trusted proxy, foreign Origin", true, http.MethodPost, map[string]string{"Origin": "https://evil.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evf.example"}, true, false},
		{"forwarded headers not trusted", false, http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://evf.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evf.example"}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			served := false
			h := browsersafe.New(tc.trustProxy, session).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }))
			req := httptest.NewRequest(tc.method, "http://api.example/riverui/api/jobs/delete", strings.NewReader(`{"ids":["1"],"x":"="}`))
			req.Header.Set("Content-Type", "text/plain")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.cookie {
				req.AddCookie(&http.Cookie{Name: session, Value: "s"})
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if served != tc.served {
				t.Fatalf("served %v, want %v (%d %s)", served, tc.served, rec.Code, rec.Body)
			}
			if rec.Header().Get("Content-Security-Policy") != "frame-ancestors 'none'" {
				t.Errorf("Content-Security-Policy %q, want frame-ancestors 'none'", rec.Header().Get("Content-Security-Policy"))
			}
			if served {
				return
			}
			var refusal struct{ Message string }
			if rec.Code != http.StatusForbidden || json.Unmarshal(rec.Body.Bytes(), &refusal) != nil || !strings.Contains(refusal.Message, "refused") {
				t.Errorf("refusal %d %s, want 403 with a message", rec.Code, rec.Body)
			}
		})
	}
}

// TestFormToken: a form is accepted only with the token of the cookie
// its page set.
func TestFormToken(t *testing.T) {
	t.Parallel()
	g := browsersafe.New(false)
	rec := httptest.NewRecorder()
	token, err := g.FormToken(rec, httptest.NewRequest(http.MethodGet, "http://api.example/riverui/login", nil), "/riverui/")
	if err != nil {
		t.Fatal(err)
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/riverui/" || cookies[0].Secure {
		t.Fatalf("form token cookie %+v, want one HttpOnly, SameSite=Strict, path /riverui/, not Secure over http", cookies)
	}
	post := func(field string, cookie *http.Cookie) bool {
		req := httptest.NewRequest(http.MethodPost, "http://api.example/riverui/login", strings.NewReader(url.Values{browsersafe.FormTokenField: {field}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != nil {
			req.AddCookie(cookie)
		}
		return browsersafe.CheckFormToken(req)
	}
	if !post(token, cookies[0]) {
		t.Error("the page's own token refused")
	}
	if post(token+"x", cookies[0]) || post("", cookies[0]) || post(token, nil) || post("", &http.Cookie{Name: cookies[0].Name, Value: ""}) {
		t.Error("a form without its page's token accepted")
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "https://api.example/riverui/login", nil)
	if _, err := g.FormToken(rec, req, "/riverui/"); err != nil || !rec.Result().Cookies()[0].Secure {
		t.Errorf("form token cookie over https: %+v %v, want Secure", rec.Result().Cookies(), err)
	}
}
