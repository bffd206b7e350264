package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// mainProcessEnv, set to 1, turns the test binary into the worker command:
// TestMain runs main with the process's arguments instead of the tests.
const mainProcessEnv = "EVF_TEST_WORKER_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainProcessEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `worker mcp --org ORG` as an assistant starts it, a process on stdio: a
// client of the SDK lists the eleven tools and creates a task, which is the
// organization's.
func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	cmd := exec.Command(os.Args[0], "mcp", "--org", "org-stdio")
	cmd.Env = append(os.Environ(), mainProcessEnv+"=1", "DATABASE_URL="+url, "EVF_DATABASE_URL=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-assistant", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to worker mcp: %v\nstderr: %s", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v\nstderr: %s", err, stderr.String())
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{"check_citations", "create_task", "feedback", "get_evidence", "get_status", "list_tasks", "pause_task",
		"queue_targets", "recheck_task", "resume_task", "stop_task", "task_jobs"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"hypothesis": "Glaciers are retreating."}})
	if err != nil || res.IsError {
		t.Fatalf("create_task: %v %+v\nstderr: %s", err, res, stderr.String())
	}
	b, _ := json.Marshal(res.StructuredContent)
	var task service.CreatedTask
	if err := json.Unmarshal(b, &task); err != nil || task.OrganizationID != "org-stdio" || task.TaskID <= 0 {
		t.Errorf("create_task over stdio gave %s (%v), want a task of org-stdio", b, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close (the process ends when stdin closes): %v\nstderr: %s", err, stderr.String())
	}
}

// Without --org, `worker mcp` refuses to start.
func TestMCPNeedsOrg(t *testing.T) {
	t.Parallel()
	root := rootCmd()
	root.SetArgs([]string{"mcp"})
	root.SetOut(new(strings.Builder))
	root.SetErr(new(strings.Builder))
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "--org is required") {
		t.Errorf("worker mcp without --org: %v, want --org is required", err)
	}
}
