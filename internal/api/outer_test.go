package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
)

// TestUnroutedAnswersAreProblems: a path no operation serves is 404
// route_not_found and a method a path does not take is 405
// method_not_allowed with Allow, both problems, on /v1 and outside it.
func TestUnroutedAnswersAreProblems(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	cases := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{http.MethodGet, "/v1/no-such-thing", http.StatusNotFound, "route_not_found", ""},
		{http.MethodGet, "/nowhere", http.StatusNotFound, "route_not_found", ""},
		{http.MethodDelete, "/v1/tasks", http.StatusMethodNotAllowed, "method_not_allowed", "GET"},
		{http.MethodPut, "/v1/tasks/" + itoa(b.owner.task), http.StatusMethodNotAllowed, "method_not_allowed", "GET"},
	}
	for _, c := range cases {
		resp, data := b.call(t, c.method, c.path, b.owner.token, nil)
		what := c.method + " " + c.path
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", what, resp.StatusCode, clip(data), c.status)
			continue
		}
		if p := checkProblem(t, what, resp, data); p.Code != c.code {
			t.Errorf("%s: code %q, want %q", what, p.Code, c.code)
		}
		if c.allow != "" && !strings.Contains(resp.Header.Get("Allow"), c.allow) {
			t.Errorf("%s: Allow %q, want it to name %s", what, resp.Header.Get("Allow"), c.allow)
		}
	}
}

// TestBodyReadAsJSONWhateverItsType: curl's -d sends
// application/x-www-form-urlencoded; a JSON body is taken whatever the
// Content-Type says (or without one), a body that is not JSON is a 400
// naming the body. A create answers 201 with the task's Location.
func TestBodyReadAsJSONWhateverItsType(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	for _, ct := range []string{"", "application/x-www-form-urlencoded", "text/plain; charset=utf-8", "application/json"} {
		req := b.request(t, http.MethodPost, "/v1/tasks", b.owner.token, []byte(`{"hypothesis": "Glaciers are retreating."}`))
		req.Header.Del("Content-Type")
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, data := b.do(t, req)
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("Content-Type %q: %d %s, want 201", ct, resp.StatusCode, clip(data))
			continue
		}
		var created struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(data, &created); err != nil {
			t.Fatal(err)
		}
		loc := resp.Header.Get("Location")
		if loc != "/v1/tasks/"+itoa(created.ID) {
			t.Errorf("Location %q, want /v1/tasks/%d", loc, created.ID)
			continue
		}
		if resp, data := b.call(t, http.MethodGet, loc, b.owner.token, nil); resp.StatusCode != http.StatusOK || !bytes.Contains(data, []byte("Glaciers are retreating.")) {
			t.Errorf("GET %s: %d %s, want the task", loc, resp.StatusCode, clip(data))
		}
	}
	req := b.request(t, http.MethodPost, "/v1/tasks", b.owner.token, []byte(`hypothesis=Glaciers`))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, data := b.do(t, req)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a form body: %d %s, want 400", resp.StatusCode, clip(data))
	}
	if p := checkProblem(t, "a form body", resp, data); p.Code != "invalid_request" || !strings.Contains(string(data), `"location":"body"`) {
		t.Errorf("a form body: %s, want invalid_request naming the body", clip(data))
	}
}

// TestRequestIDs: a usable X-Request-Id is echoed as sent; an unusable or
// missing one is replaced by one of the API's own, a new one each time,
// on answers of every kind.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	own := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for _, c := range []struct{ sent, token string }{
		{"", b.owner.token}, {"", ""}, {"bad id with spaces", b.owner.token}, {strings.Repeat("x", 129), b.owner.token}, {"a;b=c", b.owner.token},
	} {
		req := b.request(t, http.MethodGet, "/v1/tasks", c.token, nil)
		if c.sent != "" {
			req.Header[api.RequestIDHeader] = []string{c.sent}
		}
		resp, _ := b.do(t, req)
		got := resp.Header.Get(api.RequestIDHeader)
		if !own.MatchString(got) || seen[got] {
			t.Errorf("sent %q (status %d): X-Request-Id %q, want a new one of the API's own", c.sent, resp.StatusCode, got)
		}
		seen[got] = true
	}
	for _, sent := range []string{"0f3c2b1e-9d7a-4c55-8f00-0123456789ab", "trace:abc.def_1-2"} {
		req := b.request(t, http.MethodGet, "/v1/no-such-thing", b.owner.token, nil)
		req.Header.Set(api.RequestIDHeader, sent)
		if resp, _ := b.do(t, req); resp.Header.Get(api.RequestIDHeader) != sent {
			t.Errorf("sent %q: X-Request-Id %q, want it echoed", sent, resp.Header.Get(api.RequestIDHeader))
		}
	}
}

// TestRateLimitHeaders: every answer to a token says its budget in the
// IETF RateLimit-Policy and RateLimit headers: the quota, and what is
// left counting down to 0 at the 429.
func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{Rate: 0.01, Burst: 3})
	field := regexp.MustCompile(`^"token";r=(\d+);t=(\d+)$`)
	for i, want := range []int{2, 1, 0, 0} {
		resp, data := b.call(t, http.MethodGet, "/v1/tasks", b.owner.token, nil)
		if policy := resp.Header.Get("RateLimit-Policy"); policy != `"token";q=3;w=300` {
			t.Errorf("request %d: RateLimit-Policy %q, want \"token\";q=3;w=300", i+1, policy)
		}
		m := field.FindStringSubmatch(resp.Header.Get("RateLimit"))
		if m == nil {
			t.Fatalf("request %d (%d %s): RateLimit %q", i+1, resp.StatusCode, clip(data), resp.Header.Get("RateLimit"))
		}
		left, _ := strconv.Atoi(m[1])
		reset, _ := strconv.Atoi(m[2])
		if left != want || reset < 1 || reset > 300 {
			t.Errorf("request %d (%d): r=%d t=%d, want r=%d and t in 1..300", i+1, resp.StatusCode, left, reset, want)
		}
		if i == 3 && resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("request past the burst: %d, want 429", resp.StatusCode)
		}
	}
}

// TestProblemPages: every code api.ProblemCodes lists is described at
// its type's address, without a token; codes are unique.
func TestProblemPages(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	seen := map[string]bool{}
	for _, c := range api.ProblemCodes {
		if seen[c.Code] || !regexp.MustCompile(`^[a-z][a-z_]+$`).MatchString(c.Code) || c.Description == "" {
			t.Errorf("code %q: duplicated, not snake_case or undescribed", c.Code)
		}
		seen[c.Code] = true
		resp, data := b.call(t, http.MethodGet, "/v1/problems/"+c.Code, "", nil)
		var got api.ProblemCode
		if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &got) != nil || got != c {
			t.Errorf("GET /v1/problems/%s: %d %s, want %+v", c.Code, resp.StatusCode, clip(data), c)
		}
	}
	resp, data := b.call(t, http.MethodGet, "/v1/problems/no_such_code", "", nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown code: %d %s, want 404", resp.StatusCode, clip(data))
	}
}

// TestOperationsDocumentTheirErrors: an operation's document lists the
// error statuses it can answer and not the others: no 413 without a
// body, no 404 without a row in its path, no 409 on a read, and every
// token-checked operation its 401, 403 and 429.
func TestOperationsDocumentTheirErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			RequestBody json.RawMessage            `json:"requestBody"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b.spec, &doc); err != nil {
		t.Fatal(err)
	}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			has := func(status string) bool { _, ok := op.Responses[status]; return ok }
			what := strings.ToUpper(method) + " " + path
			if op.RequestBody == nil && has("413") {
				t.Errorf("%s takes no body and documents 413", what)
			}
			if !strings.Contains(path, "_id}") && !strings.Contains(path, "{code}") && has("404") {
				t.Errorf("%s names no row and documents 404", what)
			}
			if method == "get" && has("409") {
				t.Errorf("%s reads and documents 409", what)
			}
			if !public[op.OperationID] && (!has("401") || !has("403") || !has("429")) {
				t.Errorf("%s checks a token and lacks 401, 403 or 429", what)
			}
		}
	}
}
