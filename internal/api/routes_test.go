package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
)

// validBodies are a valid request body of each operation that takes one,
// by operation id. A new operation with a body needs one here (the walk
// of every route fails without it).
var validBodies = map[string]string{
	"create-task":        `{"hypothesis": "Sea ice is thinning.", "budget": "minimal"}`,
	"add-claims":         `{"claims": ["Ice sheets are thinning."]}`,
	"add-targets":        `{"targets": [{"kind": "url", "value": "https://a.example.org/ice"}]}`,
	"stop-task":          `{"cleanup": "none"}`,
	"set-task-budget":    `{"budget": "deep"}`,
	"recheck-task":       `{"every": "72h"}`,
	"check-citations":    `{"text": "Glaciers are retreating [E1]."}`,
	"claim-feedback":     `{"action": "reject", "reason": "wrong", "reviewer": "rev"}`,
	"correct-edge":       `{"relation": "refutes", "reason": "misread", "reviewer": "rev"}`,
	"link-claims":        `{"from": "E2", "to": "E1", "relation": "depends_on", "weight": 0.5, "reason": "a sub-claim", "reviewer": "rev"}`,
	"change-domain-view": `{"action": "block", "reason": "spam", "reviewer": "rev"}`,

	// the proposed links proposeLinks makes
	"accept-claim-link": `{"from": "E1", "to": "E90", "reviewer": "rev"}`,
	"reject-claim-link": `{"from": "E1", "to": "E91"}`,
}

// bodiless are the POST operations that take no body.
var bodiless = map[string]bool{"retry-job": true, "cancel-job": true, "pause-task": true, "resume-task": true}

// ownRows are the operations that name no row in their path: they act on
// the caller's own organization, so another's token cannot reach the
// owner's rows through them by construction (listing is checked apart).
var ownRows = map[string]bool{"create-task": true, "list-tasks": true,
	// a domain is shared: each organization reads and changes its own view
	// of it (TestDomainViewIsTheOrganizations)
	"get-domain-view": true, "change-domain-view": true}

// public are the operations that need no token: the description of the
// problem codes.
var public = map[string]bool{"list-problems": true, "get-problem": true}

// TestEveryRouteChecksTheOrganization walks every operation of the served
// OpenAPI document: without a token it is 401, with another organization's
// token it is 404 for the owner's task, claim and edge, and with the
// owner's it succeeds with an answer the document describes.
func TestEveryRouteChecksTheOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	proposeLinks(t, b.pool, b.owner.task)
	if ok, errs := b.validator.ValidateDocument(); !ok {
		t.Fatalf("the served OpenAPI document is not valid OpenAPI 3.1: %s", validationText(errs))
	}
	if !strings.Contains(string(b.spec), `"openapi":"3.1.0"`) {
		t.Errorf("the document is not OpenAPI 3.1: %s", clip(b.spec))
	}
	ops := b.operations(t)
	if len(ops) < 15 {
		t.Fatalf("the document lists %d operations, want every /v1 operation", len(ops))
	}
	for _, op := range ops {
		var body []byte
		if s, ok := validBodies[op.id]; ok {
			body = []byte(s)
		} else if op.method == http.MethodPost && !bodiless[op.id] {
			t.Fatalf("operation %s takes a body and has none in validBodies", op.id)
		}
		path := op.filled(b.owner)
		if public[op.id] {
			resp, data := b.call(t, op.method, path, "", body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s (public) without a token: %d %s, want 200", op.method, path, resp.StatusCode, clip(data))
			} else {
				b.checkResponse(t, op.method, path, "", body, resp, data)
			}
			continue
		}
		if resp, data := b.call(t, op.method, path, "", body); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d %s, want 401", op.method, path, resp.StatusCode, clip(data))
		} else {
			checkProblem(t, op.method+" "+path+" without a token", resp, data)
			b.checkResponse(t, op.method, path, "", body, resp, data)
		}
		if resp, data := b.call(t, op.method, path, "evf_org_not-a-token", body); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s with a wrong token: %d, want 401", op.method, path, resp.StatusCode)
		} else if !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: 401 without WWW-Authenticate: Bearer", op.method, path)
		} else if strings.Contains(string(data), "evf_org_not-a-token") {
			t.Errorf("%s %s: the 401 repeats the secret", op.method, path)
		}
		if resp, data := b.call(t, op.method, path, b.operator, body); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with an operator token: %d %s, want 403", op.method, path, resp.StatusCode, clip(data))
		} else {
			checkProblem(t, op.method+" "+path+" with an operator token", resp, data)
		}
		if !ownRows[op.id] {
			resp, data := b.call(t, op.method, path, b.stranger.token, body)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s with another organization's token: %d %s, want 404", op.method, path, resp.StatusCode, clip(data))
			} else {
				checkProblem(t, op.method+" "+path+" with another organization's token", resp, data)
				b.checkResponse(t, op.method, path, b.stranger.token, body, resp, data)
			}
		}
		// a row's id out of range is 400 invalid_request, a problem the
		// document describes
		if bad := regexp.MustCompile(`\{[a-z_]+_id\}`).ReplaceAllString(op.path, "0"); bad != op.path {
			resp, data := b.call(t, op.method, bad, b.owner.token, body)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s %s: %d %s, want 400", op.method, bad, resp.StatusCode, clip(data))
			} else if p := checkProblem(t, op.method+" "+bad, resp, data); p.Code != "invalid_request" {
				t.Errorf("%s %s: code %q, want invalid_request", op.method, bad, p.Code)
			} else {
				b.checkResponse(t, op.method, bad, b.owner.token, body, resp, data)
			}
		}
		if op.id == "task-events" {
			b.firstEvent(t, path, b.owner.token)
			continue
		}
		resp, data := b.call(t, op.method, path, b.owner.token, body)
		if resp.StatusCode/100 != 2 {
			t.Errorf("%s %s with the owner's token: %d %s, want success", op.method, path, resp.StatusCode, clip(data))
			continue
		}
		b.checkRequest(t, op.method, path, b.owner.token, body)
		b.checkResponse(t, op.method, path, b.owner.token, body, resp, data)
	}
	// The stranger's list has its own task and not the owner's.
	_, data := b.call(t, http.MethodGet, "/v1/tasks", b.stranger.token, nil)
	var page struct {
		Tasks []struct {
			ID int64 `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		t.Fatal(err)
	}
	for _, task := range page.Tasks {
		if task.ID == b.owner.task {
			t.Errorf("the stranger's task list shows the owner's task %d", task.ID)
		}
	}
	if len(page.Tasks) == 0 {
		t.Errorf("the stranger's task list is empty; it has a task")
	}
}

// firstEvent opens the task's event stream and reads its first event.
func (b *testBundle) firstEvent(t *testing.T, path, token string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := b.request(t, http.MethodGet, path, token, nil).WithContext(ctx)
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ev, ok := nextEvent(bufio.NewReader(resp.Body))
	if !ok || ev.name != api.EventProgress || ev.data.TaskID == 0 {
		t.Errorf("first event of %s: %+v, want a progress event of the task", path, ev)
	}
}

// event is one Server-Sent Event of a task's stream.
type event struct {
	id, name string
	data     api.TaskProgress
}

// nextEvent reads the next event; false at the stream's end.
func nextEvent(r *bufio.Reader) (event, bool) {
	var ev event
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ev, false
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && ev.name != "":
			return ev, true
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
				return ev, false
			}
		}
	}
}
