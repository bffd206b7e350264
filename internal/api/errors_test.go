package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
)

// problemBody is the error shape of every failed call (RFC 9457 problem
// details, as huma's ErrorModel).
type problemBody struct {
	Type   string `json:"type"`
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
	Errors []struct {
		Message  string `json:"message"`
		Location string `json:"location"`
	} `json:"errors"`
}

func decodeProblem(t *testing.T, data []byte) problemBody {
	t.Helper()
	var p problemBody
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("error body is not a problem: %v: %s", err, clip(data))
	}
	return p
}

// checkProblem checks an error answer is application/problem+json with
// a code api.ProblemCodes lists for its status, and the type that
// describes it.
func checkProblem(t *testing.T, what string, resp *http.Response, data []byte) problemBody {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
	}
	p := decodeProblem(t, data)
	if p.Status != resp.StatusCode {
		t.Errorf("%s: problem status %d on a %d answer", what, p.Status, resp.StatusCode)
	}
	listed := false
	for _, c := range api.ProblemCodes {
		listed = listed || c.Code == p.Code && c.Status == resp.StatusCode
	}
	if !listed {
		t.Errorf("%s: code %q with status %d is not one of api.ProblemCodes: %s", what, p.Code, resp.StatusCode, clip(data))
	}
	if p.Type != "/v1/problems/"+p.Code {
		t.Errorf("%s: type %q, want /v1/problems/%s", what, p.Type, p.Code)
	}
	return p
}

// TestErrorShapes calls operations wrongly and checks each answer's status,
// that it names what was wrong, and that it is the documented shape.
func TestErrorShapes(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	tasks := "/v1/tasks/" + itoa(b.owner.task)
	cases := []struct {
		name, method, path, body string
		token                    string
		status                   int
		names                    string // what the detail or an error's location must name
	}{
		{"budget not a class", http.MethodPost, "/v1/tasks", `{"hypothesis": "x", "budget": "huge"}`, b.owner.token, 400, "body.budget"},
		{"hypothesis missing", http.MethodPost, "/v1/tasks", `{"budget": "deep"}`, b.owner.token, 400, "hypothesis"},
		{"not JSON", http.MethodPost, "/v1/tasks", `{"hypothesis": `, b.owner.token, 400, "body"},
		{"claims empty", http.MethodPost, tasks + "/claims", `{"claims": []}`, b.owner.token, 400, "body.claims"},
		{"target kind unknown", http.MethodPost, tasks + "/targets", `{"targets": [{"kind": "ftp", "value": "x"}]}`, b.owner.token, 400, "body.targets[0].kind"},
		{"target URL refused by the fleet", http.MethodPost, tasks + "/targets", `{"targets": [{"kind": "url", "value": "ftp://a.example.org/"}]}`, b.owner.token, 400, "targets[0]"},
		{"limit too large", http.MethodGet, "/v1/tasks?limit=5000", "", b.owner.token, 400, "query.limit"},
		{"cursor of another list", http.MethodGet, tasks + "/export?cursor=abc", "", b.owner.token, 400, "cursor"},
		{"no token", http.MethodGet, tasks, "", "", 401, "bearer token"},
		{"revoked or unknown token", http.MethodGet, tasks, "", "evf_org_unknown", 401, "not valid"},
		{"another organization's task", http.MethodGet, tasks, "", b.stranger.token, 404, "does not exist"},
		{"a task that does not exist", http.MethodGet, "/v1/tasks/999999", "", b.owner.token, 404, "does not exist"},
		{"another organization's edge", http.MethodPost, "/v1/edges/" + itoa(b.owner.edge) + "/correction", `{"relation": "refutes"}`, b.stranger.token, 404, "edge"},
		{"an operator token on an organization's route", http.MethodGet, tasks, "", b.operator, 403, "operator"},
	}
	for _, c := range cases {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		resp, data := b.call(t, c.method, c.path, c.token, body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, clip(data), c.status)
			continue
		}
		p := checkProblem(t, c.name, resp, data)
		named := strings.Contains(p.Detail, c.names)
		for _, e := range p.Errors {
			named = named || strings.Contains(e.Location, c.names) || strings.Contains(e.Message, c.names)
		}
		if !named {
			t.Errorf("%s: the answer does not name %q: %s", c.name, c.names, clip(data))
		}
		if c.name != "not JSON" {
			b.checkResponse(t, c.method, c.path, c.token, body, resp, data)
		}
	}
}

// TestBodyTooLarge: a body past the bound is 413 before it is read whole.
func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	claim := strings.Repeat("a", 1000)
	var buf bytes.Buffer
	buf.WriteString(`{"claims": [`)
	for i := 0; buf.Len() < api.MaxBodyBytes+1000; i++ {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString(strconv.Quote(claim))
	}
	buf.WriteString(`]}`)
	path := "/v1/tasks/" + itoa(b.owner.task) + "/claims"
	resp, data := b.call(t, http.MethodPost, path, b.owner.token, buf.Bytes())
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a %d-byte body: %d %s, want 413", buf.Len(), resp.StatusCode, clip(data))
	}
	decodeProblem(t, data)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	req := b.request(t, http.MethodPost, path, b.owner.token, nil)
	if ok, errs := b.validator.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("413 does not match the document: %s", validationText(errs))
	}
}

// TestRateLimit: past its burst a token gets 429 with Retry-After; another
// token is not slowed by it.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{Rate: 0.01, Burst: 3})
	path := "/v1/tasks/" + itoa(b.owner.task) + "/status"
	for i := range 3 {
		if resp, data := b.call(t, http.MethodGet, path, b.owner.token, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d within the burst: %d %s", i+1, resp.StatusCode, clip(data))
		}
	}
	resp, data := b.call(t, http.MethodGet, path, b.owner.token, nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("request past the burst: %d %s, want 429", resp.StatusCode, clip(data))
	}
	after, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || after < 1 {
		t.Errorf("Retry-After %q, want whole seconds ≥ 1", resp.Header.Get("Retry-After"))
	}
	b.checkResponse(t, http.MethodGet, path, b.owner.token, nil, resp, data)
	if resp, data := b.call(t, http.MethodGet, "/v1/tasks", b.stranger.token, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("another token: %d %s, want 200", resp.StatusCode, clip(data))
	}
}

// TestValidatorCatchesAWrongAnswer shows the document check can fail: an
// answer of the wrong shape does not pass it.
func TestValidatorCatchesAWrongAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	path := "/v1/tasks/" + itoa(b.owner.task)
	resp, _ := b.call(t, http.MethodGet, path, b.owner.token, nil)
	resp.Body = io.NopCloser(strings.NewReader(`{"id": "not a number", "claims": "many"}`))
	req := b.request(t, http.MethodGet, path, b.owner.token, nil)
	if ok, _ := b.validator.ValidateHttpResponse(req, resp); ok {
		t.Fatal("a task whose id is a string passed the document's check")
	}
}

// TestEventStreamsPerToken: a token holds at most PerToken streams open;
// one more is 429, and closing one makes room.
func TestEventStreamsPerToken(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{Events: api.EventOptions{PerToken: 1}})
	path := "/v1/tasks/" + itoa(b.owner.task) + "/events"
	ctx, cancel := context.WithCancel(context.Background())
	req := b.request(t, http.MethodGet, path, b.owner.token, nil).WithContext(ctx)
	resp, err := b.srv.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %v %v", resp, err)
	}
	if _, ok := nextEvent(bufio.NewReader(resp.Body)); !ok {
		t.Fatal("first stream sent no event")
	}
	second, data := b.call(t, http.MethodGet, path, b.owner.token, nil)
	if second.StatusCode != http.StatusTooManyRequests || second.Header.Get("Retry-After") == "" {
		t.Errorf("a second stream of the token: %d %s, want 429 with Retry-After", second.StatusCode, clip(data))
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := b.srv.Client().Do(b.request(t, http.MethodGet, path, b.owner.token, nil).WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream again after the first closed: %v %v", resp, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPRate: the MCP endpoint shares the API's rate, per token.
func TestMCPRate(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{Rate: 0.01, Burst: 1})
	if resp, _ := b.call(t, http.MethodPost, "/mcp", b.owner.token, []byte(`{}`)); resp.StatusCode == http.StatusTooManyRequests {
		t.Fatalf("the first MCP request: 429")
	}
	resp, _ := b.call(t, http.MethodPost, "/mcp", b.owner.token, []byte(`{}`))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("an MCP request past the burst: %d, want 429 with Retry-After", resp.StatusCode)
	}
}

// TestCreateTaskIdempotencyKey: a create retried with its Idempotency-Key
// answers 200 with the first's task instead of making another; the key
// with another hypothesis is 409; another organization's key is its own.
func TestCreateTaskIdempotencyKey(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	create := func(token, key, hypothesis string) (int, int64) {
		t.Helper()
		req := b.request(t, http.MethodPost, "/v1/tasks", token, []byte(`{"hypothesis": "`+hypothesis+`"}`))
		req.Header.Set("Idempotency-Key", key)
		resp, err := b.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		b.checkResponse(t, http.MethodPost, "/v1/tasks", token, nil, resp, data)
		var out struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal(data, &out)
		return resp.StatusCode, out.ID
	}
	status, first := create(b.owner.token, "req-1", "Sea ice is thinning.")
	if status != http.StatusCreated || first == 0 {
		t.Fatalf("first create: %d task %d, want 201", status, first)
	}
	status, again := create(b.owner.token, "req-1", "Sea ice is thinning.")
	if status != http.StatusOK || again != first {
		t.Errorf("retried create: %d task %d, want 200 with task %d", status, again, first)
	}
	if status, _ := create(b.owner.token, "req-1", "Something else."); status != http.StatusConflict {
		t.Errorf("the key with another hypothesis: %d, want 409", status)
	}
	if status, other := create(b.stranger.token, "req-1", "Sea ice is thinning."); status != http.StatusCreated || other == first {
		t.Errorf("another organization's same key: %d task %d, want 201 with a task of its own", status, other)
	}
	var n int
	if err := b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks WHERE hypothesis = 'Sea ice is thinning.'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d tasks made (%v), want 2: one per organization", n, err)
	}
}
