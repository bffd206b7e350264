package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/mcpserver"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// TestOneShapeEverywhere: a task made and a list read through the HTTP
// API, the MCP tools and `enqueue --json` have the same keys: the task's
// own id is id everywhere, and a list is items with next_cursor.
func TestOneShapeEverywhere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const org = "acme"
	secret, _, err := apitoken.Issue(b.ctx, b.f.Store, apitoken.Organization, org, "shapes")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := apiserver.New(b.f.Pool, apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	rest := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if resp.StatusCode/100 != 2 || json.Unmarshal(data, &out) != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
		}
		delete(out, "$schema") // the API's link to its JSON Schema
		return out
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(service.New(b.f.Store, b.f.Client), mcpserver.Options{Org: org}).Connect(b.ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "shapes", Version: "v0"}, nil).Connect(b.ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	tool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(b.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	cli := func(args ...string) map[string]any {
		t.Helper()
		var out map[string]any
		b.mustRunJSON(t, &out, append(args, "--org", org)...)
		return out
	}
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	same := func(what string, shapes map[string]map[string]any) {
		t.Helper()
		var first []string
		for way, m := range shapes {
			if first == nil {
				first = keys(m)
			} else if got := keys(m); !slices.Equal(got, first) {
				t.Errorf("%s: %s has keys %v, another way %v", what, way, got, first)
			}
			if id, ok := m["id"].(float64); what == "a created task" && (!ok || id <= 0) {
				t.Errorf("%s through %s: id %v", what, way, m["id"])
			}
			if _, ok := m["items"].([]any); what != "a created task" && !ok {
				t.Errorf("%s through %s: no items list: %v", what, way, keys(m))
			}
		}
	}
	made := rest(http.MethodPost, "/v1/tasks", `{"hypothesis": "Glaciers are retreating."}`)
	task := strconv.FormatFloat(made["id"].(float64), 'f', 0, 64)
	same("a created task", map[string]map[string]any{
		"REST": made,
		"MCP":  tool("create_task", map[string]any{"hypothesis": "Glaciers are retreating."}),
		"CLI":  cli("task", "create", "--hypothesis", "Glaciers are retreating."),
	})
	same("the task list", map[string]map[string]any{
		"REST": rest(http.MethodGet, "/v1/tasks?limit=2", ""),
		"MCP":  tool("list_tasks", map[string]any{"limit": 2}),
		"CLI":  cli("task", "list", "--limit", "2"),
	})
	same("a task's jobs", map[string]map[string]any{
		"REST": rest(http.MethodGet, "/v1/tasks/"+task+"/jobs", ""),
		"MCP":  tool("task_jobs", map[string]any{"task_id": made["id"]}),
		"CLI":  cli("job", "list", "--task", task),
	})
}
