package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/mcpserver"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

// The glacier archive (testfleet.GlacierPages).
const (
	urlWiki    = testfleet.GlacierWiki
	urlScience = testfleet.GlacierScience
	urlBlog    = testfleet.GlacierBlog
	hypothesis = testfleet.GlacierHypothesis
)

func pages() []corpus.Page { return testfleet.GlacierPages() }

// bundle is a fleet (started or not) and the service on its database.
type bundle struct {
	ctx context.Context
	f   *testfleet.Fleet
	svc *service.Service
}

func setup(t *testing.T, start bool) *bundle {
	t.Helper()
	f := testfleet.Start(t, testfleet.Options{Pages: pages(), NoStart: !start})
	return &bundle{ctx: context.Background(), f: f, svc: service.New(f.Store, f.Client)}
}

// connect runs New(svc, opts) over the in-memory transport (what stdio
// carries, without the process) and returns a client session of the SDK.
func (b *bundle) connect(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(b.svc, opts).Connect(b.ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return clientOver(t, ct)
}

func clientOver(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-assistant", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call runs a tool that must succeed and decodes its structured content.
func call[Out any](t *testing.T, cs *mcp.ClientSession, tool string, args any) Out {
	t.Helper()
	res := callRaw(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", tool, args, text(res))
	}
	var out Out
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out
}

func callRaw(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	return res
}

// callErr runs a tool that must fail as a tool error and returns its text.
func callErr(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := callRaw(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v: succeeded, want a tool error: %s", tool, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var allTools = []string{"check_citations", "create_task", "feedback", "get_evidence", "get_status", "list_tasks", "pause_task",
	"queue_targets", "recheck_task", "resume_task", "stop_task", "task_jobs"}

// spanPage and claimPage are get_evidence's pages of each view.
type (
	spanPage struct {
		View  string                 `json:"view"`
		Items []service.EvidenceSpan `json:"items"`
		Next  string                 `json:"next_cursor"`
	}
	claimPage struct {
		Items []service.ExportItem `json:"items"`
	}
)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tool.Name)
		}
		if a := tool.Annotations; a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("tool %s lacks its annotations: %+v", tool.Name, a)
		} else if want := tool.Name == "stop_task"; *a.DestructiveHint != want {
			t.Errorf("tool %s: destructiveHint %v, want %v (only stop_task deletes)", tool.Name, *a.DestructiveHint, want)
		} else if a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("tool %s is read-only and destructive", tool.Name)
		}
	}
	slices.Sort(names)
	return names
}

// An assistant lists the tools and runs a task through them against a
// running worker: create_task → queue_targets → get_status until the task
// completes → get_evidence, whose spans are the page versions' text; then
// checks citations, gives feedback and stops the task.
func TestAssistantRunsATask(t *testing.T) {
	t.Parallel()
	b := setup(t, true)
	cs := b.connect(t, mcpserver.Options{Org: "org-a"})

	if got := toolNames(t, cs); !slices.Equal(got, allTools) {
		t.Fatalf("tools %v, want %v", got, allTools)
	}

	task := call[service.CreatedTask](t, cs, "create_task", map[string]any{"hypothesis": hypothesis})
	if task.TaskID <= 0 || task.OrganizationID != "org-a" || task.Hypothesis != hypothesis {
		t.Fatalf("create_task gave %+v", task)
	}
	added := call[service.TargetsAdded](t, cs, "queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{
		{"kind": "url", "value": urlWiki}, {"kind": "url", "value": urlScience}, {"kind": "url", "value": urlBlog}}})
	if added.Inserted != 3 || len(added.JobIDs) != 3 {
		t.Fatalf("queue_targets gave %+v, want 3 jobs inserted", added)
	}
	again := call[service.TargetsAdded](t, cs, "queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{{"kind": "url", "value": urlWiki}}})
	if again.Inserted != 0 || again.Skipped != 1 {
		t.Errorf("queue_targets of a queued URL gave %+v, want it skipped", again)
	}

	// the assistant polls get_status until the task has completed
	deadline := time.Now().Add(2 * time.Minute)
	var st service.Status
	for {
		st = call[service.Status](t, cs, "get_status", map[string]any{"task_id": task.TaskID})
		if st.TaskStatus == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %d not completed after 2 minutes: %+v\n%s", task.TaskID, st, testfleet.JobDump(t, b.f.Pool))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.Pending != 0 || st.Finished == 0 || st.Targets["extracted"] != 3 {
		t.Errorf("completed task's status: pending %d, finished %d, targets %v; want 0, >0, 3 extracted", st.Pending, st.Finished, st.Targets)
	}

	// the evidence, page by page, each span the version's text there
	var spans []service.EvidenceSpan
	cursor, pagesRead := "", 0
	for {
		ev := call[spanPage](t, cs, "get_evidence", map[string]any{"task_id": task.TaskID, "limit": 5, "cursor": cursor})
		pagesRead++
		if ev.View != "spans" || len(ev.Items) > 5 {
			t.Fatalf("get_evidence page: view %q, %d spans", ev.View, len(ev.Items))
		}
		spans = append(spans, ev.Items...)
		if cursor = ev.Next; cursor == "" {
			break
		}
	}
	if len(spans) < 3 || pagesRead < 2 {
		t.Fatalf("get_evidence: %d spans in %d pages, want several pages", len(spans), pagesRead)
	}
	kinds := map[string]int{}
	var extracted int64
	for _, s := range spans {
		kinds[s.Kind]++
		var content string
		if err := b.f.Pool.QueryRow(b.ctx, `SELECT substr(content, $2 + 1, $3 - $2) FROM page_versions WHERE id = $1 AND page_id = $4`,
			s.PageVersionID, s.StartChar, s.EndChar, s.PageID).Scan(&content); err != nil {
			t.Fatalf("span %+v: page version: %v", s, err)
		}
		if s.Text == "" || s.Text != content {
			t.Errorf("span %+v: text is not the version's text %q", s, content)
		}
		if !strings.HasPrefix(s.Source.EvidenceNo, "E") {
			t.Errorf("span %+v: no E-number", s)
		}
		if s.Kind == "origin" {
			extracted = s.Source.ClaimID
		}
	}
	if kinds["origin"] == 0 || kinds["supports"]+kinds["refutes"]+kinds["neutral"] == 0 {
		t.Errorf("span kinds %v: want origin quotes and NLI edges", kinds)
	}

	// one claim's spans only
	one := call[spanPage](t, cs, "get_evidence", map[string]any{"task_id": task.TaskID, "claim_id": extracted})
	for _, s := range one.Items {
		if s.Source.ClaimID != extracted {
			t.Errorf("get_evidence of claim %d listed a span of claim %d", extracted, s.Source.ClaimID)
		}
	}
	if len(one.Items) == 0 {
		t.Errorf("get_evidence of claim %d: no spans", extracted)
	}

	// the claims view: E1 is the hypothesis, extracted claims have a quote span
	claims := call[claimPage](t, cs, "get_evidence", map[string]any{"task_id": task.TaskID, "view": "claims"})
	if len(claims.Items) < 2 || claims.Items[0].ID != "E1" || claims.Items[0].Claim != hypothesis {
		t.Fatalf("get_evidence view claims: %+v", claims.Items)
	}
	var quoted *service.ExportItem
	for i, c := range claims.Items[1:] {
		if c.Kind == "extracted" && (c.QuoteSpan == nil || c.PageVersionID == nil || c.StartChar == nil) {
			t.Errorf("claim %s has no span: %+v", c.ID, c)
		}
		if c.Recheck != nil {
			t.Errorf("claim %s has a recheck before any: %+v", c.ID, c.Recheck)
		}
		if c.Kind == "extracted" && quoted == nil {
			quoted = &claims.Items[1+i]
		}
	}
	// a recheck of its quote's page found it gone: the claims view says so
	if quoted == nil {
		t.Fatal("no extracted claim")
	}
	err := b.f.Store.InTx(context.Background(), func(_ pgx.Tx, q *store.Queries) error {
		_, err := q.WriteRecheck(context.Background(), store.RecheckWrite{TaskID: task.TaskID, PageID: *quoted.PageID, JobID: 1,
			CheckedAt: time.Now(), Outcome: "gone", HTTPStatus: 410, Citations: []store.CitationFinding{{PageVersionID: *quoted.PageVersionID,
				Start: *quoted.StartChar, End: *quoted.EndChar, State: "gone"}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range call[claimPage](t, cs, "get_evidence", map[string]any{"task_id": task.TaskID, "view": "claims"}).Items {
		if c.ID == quoted.ID && (c.Recheck == nil || c.Recheck.State != "gone" || c.Recheck.CheckedAt.IsZero()) {
			t.Errorf("claim %s after its page was found gone: recheck %+v", c.ID, c.Recheck)
		}
	}

	// the assistant sets the task's recheck schedule, then asks for a round now
	set := call[service.RecheckStarted](t, cs, "recheck_task", map[string]any{"task_id": task.TaskID, "every": "72h"})
	if set.Every != "72h0m0s" || set.JobID != 0 {
		t.Errorf("recheck_task every 72h gave %+v, want the schedule set and no round", set)
	}
	var every string
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT recheck_every::text FROM tasks WHERE id = $1`, task.TaskID).Scan(&every); err != nil || every != "72:00:00" {
		t.Errorf("the task's recheck_every after recheck_task: %q (%v), want 72:00:00", every, err)
	}
	round := call[service.RecheckStarted](t, cs, "recheck_task", map[string]any{"task_id": task.TaskID})
	var kind, args string
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT kind, args::text FROM river_job WHERE id = $1`, round.JobID).Scan(&kind, &args); err != nil ||
		kind != "recheck" || !strings.Contains(args, fmt.Sprintf(`"task_id": %d`, task.TaskID)) {
		t.Errorf("recheck_task round %+v: job %s %s (%v), want a recheck job of task %d", round, kind, args, err, task.TaskID)
	}

	cite := call[citation.Result](t, cs, "check_citations", map[string]any{"task_id": task.TaskID,
		"text": "Glaciers are retreating worldwide [E1]. Sea level rose by 21 % because of it [E999]."})
	if cite.OK || !slices.Equal(cite.InvalidIDs, []string{"E999"}) || !slices.Contains(cite.Cited, "E1") {
		t.Errorf("check_citations: ok %v, invalid %v, cited %v; want E999 invalid, E1 cited", cite.OK, cite.InvalidIDs, cite.Cited)
	}

	fb := call[mcpserver.Feedback](t, cs, "feedback", map[string]any{"kind": "claim", "claim_id": extracted, "verdict": "reject", "reason": "test", "by": "assistant"})
	if fb.Claim == nil || fb.Claim.ClaimID != extracted || fb.Claim.Verification != "rejected" || !fb.Claim.Changed {
		t.Errorf("feedback reject claim %d: %+v", extracted, fb.Claim)
	}
	var edge int64
	for _, s := range spans {
		if s.Source.EdgeID != nil {
			edge = *s.Source.EdgeID
			break
		}
	}
	fe := call[mcpserver.Feedback](t, cs, "feedback", map[string]any{"kind": "edge", "edge_id": edge, "relation": "neutral", "reason": "test", "by": "assistant"})
	if fe.Edge == nil || fe.Edge.EdgeID != edge || fe.Edge.Relation != "neutral" {
		t.Errorf("feedback correct edge %d: %+v", edge, fe.Edge)
	}

	stopped := call[service.Stopped](t, cs, "stop_task", map[string]any{"task_id": task.TaskID})
	if stopped.Status != "stopped" {
		t.Errorf("stop_task: %+v", stopped)
	}
	if st := call[service.Status](t, cs, "get_status", map[string]any{"task_id": task.TaskID}); st.TaskStatus != "stopped" {
		t.Errorf("after stop_task the task is %q", st.TaskStatus)
	}
}

// A service error or a bad input is a tool error whose text says what is
// wrong, not a protocol error; nothing is written.
func TestToolErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	cs := b.connect(t, mcpserver.Options{Org: "org-a"})
	task := call[service.CreatedTask](t, cs, "create_task", map[string]any{"hypothesis": hypothesis})

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_status", map[string]any{"task_id": 999999}, "task 999999 does not exist"},
		{"create_task", map[string]any{"hypothesis": "  "}, "hypothesis: required"},
		{"queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{{"kind": "url", "value": urlWiki}, {"kind": "url", "value": "ftp://x"}}}, "targets[1]"},
		{"queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{}}, "targets: give at least one"},
		{"queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{{"kind": "isbn", "value": "123"}}}, "kind"},
		{"get_evidence", map[string]any{"task_id": task.TaskID, "limit": 5000}, "limit 5000"},
		{"get_evidence", map[string]any{"task_id": task.TaskID, "cursor": "nonsense"}, `cursor "nonsense"`},
		{"get_evidence", map[string]any{"task_id": task.TaskID, "view": "claims", "cursor": "x"}, `cursor "x"`},
		{"get_evidence", map[string]any{"task_id": task.TaskID, "claim_id": 1, "page_id": 1}, "give at most one"},
		{"get_evidence", map[string]any{"task_id": 999999}, "task 999999 does not exist"},
		{"stop_task", map[string]any{"task_id": task.TaskID, "cleanup": "everything"}, "cleanup"},
		{"feedback", map[string]any{"kind": "claim", "claim_id": 999999, "verdict": "reject", "reason": "r", "by": "b"}, "claim 999999: claim does not exist"},
		{"feedback", map[string]any{"kind": "edge", "edge_id": 999999, "relation": "supports", "reason": "r", "by": "b"}, "edge 999999"},
		{"feedback", map[string]any{"kind": "claim", "claim_id": 1, "verdict": "reject", "reason": "r", "by": " "}, "by: required"},
		{"check_citations", map[string]any{"task_id": 999999, "text": "x [E1]."}, "task 999999 does not exist"},
		{"recheck_task", map[string]any{"task_id": task.TaskID, "every": "5m"}, `every "5m"`},
		{"recheck_task", map[string]any{"task_id": 999999}, "task 999999 does not exist"},
	} {
		if got := callErr(t, cs, tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: error %q, want it to say %q", tc.tool, tc.args, got, tc.want)
		}
	}
	var n int
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT count(*) FROM river_job WHERE kind = 'target_queue'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("target_queue jobs after refused inputs: %d (%v), want 0", n, err)
	}
}

// Without a fixed organization and without a token, every call is refused.
func TestNoOrganizationIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	cs := b.connect(t, mcpserver.Options{})
	if got := callErr(t, cs, "create_task", map[string]any{"hypothesis": hypothesis}); !strings.Contains(got, "no organization") {
		t.Errorf("create_task without an organization: %q", got)
	}
}

// Two organizations' test tokens.
const (
	secretA = "evf_test_secret_a"
	secretB = "evf_test_secret_b"
)

// verify maps the two test secrets to org-a and org-b.
func verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	switch token {
	case secretA:
		return &auth.TokenInfo{UserID: "org-a"}, nil
	case secretB:
		return &auth.TokenInfo{UserID: "org-b"}, nil
	}
	return nil, fmt.Errorf("%w: not a test secret", auth.ErrInvalidToken)
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	return clientOver(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}})
}

// Over HTTP: no token or a wrong one is 401; a token's organization is the
// caller's, and org B's token does not see org A's task.
func TestHTTPTokensAndOrganizations(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	srv := httptest.NewServer(mcpserver.HTTPHandler(b.svc, verify))
	t.Cleanup(srv.Close)

	for _, auth := range []string{"", "Bearer wrong-secret", "Basic " + secretA} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}

	a, other := httpClient(t, srv.URL, secretA), httpClient(t, srv.URL, secretB)
	if got := toolNames(t, a); !slices.Equal(got, allTools) {
		t.Errorf("tools over HTTP %v, want %v", got, allTools)
	}
	task := call[service.CreatedTask](t, a, "create_task", map[string]any{"hypothesis": hypothesis})
	if task.OrganizationID != "org-a" {
		t.Errorf("org A's token created a task of %q", task.OrganizationID)
	}
	if st := call[service.Status](t, a, "get_status", map[string]any{"task_id": task.TaskID}); st.TaskID != task.TaskID {
		t.Errorf("org A's get_status of its task: %+v", st)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_status", map[string]any{"task_id": task.TaskID}},
		{"get_evidence", map[string]any{"task_id": task.TaskID}},
		{"queue_targets", map[string]any{"task_id": task.TaskID, "targets": []map[string]string{{"kind": "url", "value": urlWiki}}}},
		{"stop_task", map[string]any{"task_id": task.TaskID}},
		{"pause_task", map[string]any{"task_id": task.TaskID}},
		{"resume_task", map[string]any{"task_id": task.TaskID}},
		{"task_jobs", map[string]any{"task_id": task.TaskID}},
	} {
		if got := callErr(t, other, c.tool, c.args); !strings.Contains(got, "does not exist") {
			t.Errorf("org B's %s of org A's task: %q, want not found", c.tool, got)
		}
	}
	// the task's evidence as a resource: org A's to read, not org B's
	uri := fmt.Sprintf("evidencefleet://tasks/%d/evidence", task.TaskID)
	res, err := a.ReadResource(b.ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"id":"E1"`) {
		t.Errorf("org A reads %s: %v %+v, want its claims with E1", uri, err, res)
	}
	if _, err := other.ReadResource(b.ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Errorf("org B read org A's %s", uri)
	}
	templates, err := a.ListResourceTemplates(b.ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != mcpserver.EvidenceResource {
		t.Errorf("resource templates: %v %+v", err, templates)
	}
	// org B's list has its own tasks only; org A's has its task, and its
	// pause and resume are org A's to make
	if page := call[service.TaskPage](t, other, "list_tasks", map[string]any{}); slices.ContainsFunc(page.Tasks, func(s service.TaskSummary) bool { return s.ID == task.TaskID }) {
		t.Errorf("org B's list_tasks shows org A's task %d", task.TaskID)
	}
	if page := call[service.TaskPage](t, a, "list_tasks", map[string]any{"limit": 10}); len(page.Tasks) == 0 || page.Tasks[0].ID != task.TaskID {
		t.Errorf("org A's list_tasks: %+v, want its task first", page)
	}
	if l := call[service.Lifecycle](t, a, "pause_task", map[string]any{"task_id": task.TaskID}); l.Status != "paused" || !l.Changed {
		t.Errorf("pause_task: %+v", l)
	}
	if l := call[service.Lifecycle](t, a, "resume_task", map[string]any{"task_id": task.TaskID}); l.Status != "active" || !l.Changed {
		t.Errorf("resume_task: %+v", l)
	}
	if jobs := call[service.JobPage](t, a, "task_jobs", map[string]any{"task_id": task.TaskID}); jobs.TaskID != task.TaskID {
		t.Errorf("task_jobs: %+v", jobs)
	}
	if st := call[service.Status](t, a, "get_status", map[string]any{"task_id": task.TaskID}); st.TaskStatus != "active" {
		t.Errorf("org A's task after org B's attempts: %q, want active", st.TaskStatus)
	}
	own := call[service.CreatedTask](t, other, "create_task", map[string]any{"hypothesis": hypothesis})
	if own.OrganizationID != "org-b" || own.TaskID == task.TaskID {
		t.Errorf("org B's task: %+v", own)
	}
	// org A's hypothesis claim, named through org B's own task, is not found either
	var claimA int64
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT id FROM claims WHERE task_id = $1`, task.TaskID).Scan(&claimA); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_evidence", map[string]any{"task_id": own.TaskID, "claim_id": claimA}},
		{"feedback", map[string]any{"kind": "claim", "claim_id": claimA, "verdict": "reject", "reason": "r", "by": "b"}},
	} {
		if got := callErr(t, other, c.tool, c.args); !strings.Contains(got, "does not exist") {
			t.Errorf("org B's %s of org A's claim %d: %q, want not found", c.tool, claimA, got)
		}
	}
	if ev := call[mcpserver.Evidence](t, a, "get_evidence", map[string]any{"task_id": task.TaskID, "claim_id": claimA}); ev.TaskID != task.TaskID {
		t.Errorf("org A's get_evidence of its claim: %+v", ev)
	}
}
