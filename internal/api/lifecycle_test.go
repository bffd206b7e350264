package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
)

// TestPauseResumeAndBudget: a task's budget is refused with 409 unless it
// is paused; paused, its status says so and its budget changes; resumed,
// its budget is refused again; a stopped task cannot be paused (409). Each
// answer matches the served document.
func TestPauseResumeAndBudget(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	tok, task := b.owner.token, "/v1/tasks/"+itoa(b.owner.task)
	budget := []byte(`{"budget": "deep"}`)
	call := func(method, path string, body []byte, want int) map[string]any {
		t.Helper()
		resp, data := b.call(t, method, path, tok, body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, clip(data), want)
		}
		b.checkResponse(t, method, path, tok, body, resp, data)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := call(http.MethodPatch, task+"/budget", budget, http.StatusConflict); !strings.Contains(out["detail"].(string), "only while it is paused") {
		t.Errorf("budget of an active task: %v", out)
	}
	if out := call(http.MethodPost, task+"/pause", nil, http.StatusOK); out["status"] != "paused" || out["paused_at"] == nil || out["changed"] != true {
		t.Errorf("pause: %v", out)
	}
	if out := call(http.MethodGet, task+"/status", nil, http.StatusOK); out["task_status"] != "paused" || out["paused_at"] == nil {
		t.Errorf("status of the paused task: %v", out)
	}
	if out := call(http.MethodPatch, task+"/budget", budget, http.StatusOK); out["budget"] != "deep" || out["status"] != "paused" {
		t.Errorf("budget of a paused task: %v", out)
	}
	if out := call(http.MethodPost, task+"/resume", nil, http.StatusOK); out["status"] != "active" || out["paused_at"] != nil || out["budget"] != "deep" {
		t.Errorf("resume: %v", out)
	}
	call(http.MethodPatch, task+"/budget", budget, http.StatusConflict)
	call(http.MethodPost, task+"/stop", []byte(`{}`), http.StatusOK)
	call(http.MethodPost, task+"/pause", nil, http.StatusConflict)
}
