package cassette

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are the recorded API sessions bundled in the repository (see
// testdata/api-fixtures/ATTRIBUTION.md).
const fixtures = "../../../testdata/api-fixtures"

// The three response shapes, in miniature (hand-written, not recordings).
const (
	vcrpyHTTPX = `interactions:
- request:
    body: ''
    headers: {host: [api.example.org]}
    method: GET
    uri: https://api.example.org/v1/paper/X?b=2&a=1
  response:
    content: '{"ok": "httpx"}'
    headers:
      Content-Type: [application/json]
      Content-Encoding: [gzip]
    http_version: HTTP/1.1
    status_code: 200
version: 1
`
	vcrpyRequests = `interactions:
- request:
    body: null
    headers: {}
    method: POST
    uri: https://api.example.org/v1/paper/batch?fields=title
  response:
    body: {string: '[null]'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
`
	rVCR = `http_interactions:
- request:
    method: get
    uri: https://api.example.org/works?filter=openalex%3AW1%7CW2&mailto=a%40b.c
    body: {encoding: '', string: ''}
    headers: []
  response:
    status:
      status_code: '404'
      message: Not Found
    headers:
      content-type: application/json
    body:
      encoding: UTF-8
      file: no
      string: '{"error": "nope"}'
  recorded_at: 2025-11-17 17:13:33
- request:
    method: get
    uri: https://api.example.org/b64
  response:
    status: 200
    headers: {}
    body: {encoding: '', base64_string: aGVs
      bG8=}
recorded_with: VCR-vcr/2.0.0
`
)

func TestParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		yaml       string
		method     string
		uri        string
		wantStatus int
		wantBody   string
		wantCT     string
	}{
		{"vcrpy httpx", vcrpyHTTPX, http.MethodGet, "/v1/paper/X?a=1&b=2", 200, `{"ok": "httpx"}`, "application/json"},
		{"vcrpy requests", vcrpyRequests, http.MethodPost, "/v1/paper/batch?fields=title", 200, `[null]`, "application/json"},
		{"R vcr, status object", rVCR, http.MethodGet, "/works?mailto=a@b.c&filter=openalex:W1|W2", 404, `{"error": "nope"}`, "application/json"},
		{"R vcr, base64 body", rVCR, http.MethodGet, "/b64", 200, "hello", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(c.Replayer())
			defer srv.Close()
			req, _ := http.NewRequest(tt.method, srv.URL+tt.uri, nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || string(body) != tt.wantBody {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
			if ct := resp.Header.Get("Content-Type"); tt.wantCT != "" && ct != tt.wantCT {
				t.Errorf("Content-Type %q, want %q", ct, tt.wantCT)
			}
			if ce := resp.Header.Get("Content-Encoding"); ce != "" {
				t.Errorf("replayed Content-Encoding %q for a decoded body", ce)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for name, y := range map[string]string{
		"no interactions": "version: 1\n",
		"no status":       "interactions:\n- request: {method: GET, uri: 'http://x/'}\n  response: {content: ''}\n",
		"no uri":          "interactions:\n- request: {method: GET}\n  response: {status_code: 200}\n",
		"not yaml":        "interactions: [\n",
	} {
		if _, err := Parse([]byte(y)); err == nil {
			t.Errorf("%s: Parse succeeded", name)
		}
	}
}

func TestReplayerMatching(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(vcrpyHTTPX))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Replayer("api_key")
	tests := []struct {
		method, target string
		ok             bool
	}{
		{"GET", "/v1/paper/X?a=1&b=2", true},
		{"GET", "/v1/paper/X?b=2&a=1", true},                  // order
		{"GET", "/v1/paper/X?b=2&api_key=k&a=1", true},        // ignored parameter
		{"GET", "/v1/paper/X?a=1", false},                     // missing parameter
		{"GET", "/v1/paper/X?a=1&b=2&c=3", false},             // extra parameter
		{"GET", "/v1/paper/X?a=1&b=3", false},                 // other value
		{"POST", "/v1/paper/X?a=1&b=2", false},                // other method
		{"GET", "/v1/paper/Y?a=1&b=2", false},                 // other path
		{"GET", "/v1/paper/X?a=%31&b=2", true},                // percent encoding
		{"GET", "http://other.host/v1/paper/X?a=1&b=2", true}, // host ignored
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.target)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Match(tt.method, u); ok != tt.ok {
			t.Errorf("Match(%s %s) = %v, want %v", tt.method, tt.target, ok, tt.ok)
		}
	}

	srv := httptest.NewServer(r)
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/v1/paper/Z")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented || !strings.Contains(string(body), "GET /v1/paper/Z") {
		t.Fatalf("unmatched request: %d %q", resp.StatusCode, body)
	}
	if u := r.Unmatched(); len(u) != 1 || u[0] != "GET /v1/paper/Z" {
		t.Fatalf("Unmatched() = %q", u)
	}
	if n := len(r.Requests()); n != 1 {
		t.Fatalf("Requests() has %d, want 1", n)
	}
}

// The recorded cassettes load with every interaction; the counts are those of
// the files (checked with grep -c 'uri:').
func TestLoadRecorded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		n    int
	}{
		{"semantic-scholar/test_get_paper_references@ae6c154.yaml", 2},
		{"semantic-scholar/test_get_paper_citations.yaml", 19},
		{"openalex/oa_snowball.yml", 6},
	}
	for _, tt := range tests {
		c, err := Load(filepath.Join(fixtures, tt.path))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) != tt.n {
			t.Errorf("%s: %d interactions, want %d", tt.path, len(c.Interactions), tt.n)
		}
		for i, it := range c.Interactions {
			if it.Status != 200 || it.Method != http.MethodGet || len(it.Body) == 0 || it.Body[0] != '{' {
				t.Errorf("%s #%d: %s %d body %.20q", tt.path, i, it.Method, it.Status, it.Body)
			}
		}
	}
	if _, err := Load(filepath.Join(fixtures, "missing.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}
