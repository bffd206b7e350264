// Package mcpserver is the fleet as an MCP server (Model Context Protocol,
// on the official Go SDK): twelve tools, each a thin call of one operation
// of internal/service, so that an AI assistant creates and lists tasks,
// queues their targets, follows, pauses and resumes them, reads their jobs
// and evidence down to exact spans, checks a text's [E…] citations, has
// their cited sources checked again, stops and corrects them; and a task's
// evidence as a resource.
//
// The organization of a call is fixed by whoever starts the server
// (Options.Org: `worker mcp --org ORG` over stdio) or, when Options.Org is
// empty, is the UserID of the call's bearer token (auth.TokenInfo, set by
// HTTPHandler's token check, on every request); a call with neither is
// refused.
//
// A service error (a task of another organization or none, a bad input:
// text that is not UTF-8 among them) is a tool error result (IsError) whose text says what is wrong, not a
// protocol error.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// Options configure a server.
type Options struct {
	// Org is the organization every call acts for; "" takes it from the
	// call's bearer token (auth.TokenInfo.UserID).
	Org string
	// Logger logs the server's activity (the SDK's: sessions, failures);
	// nil logs nothing.
	Logger *slog.Logger
}

// Tool names.
const (
	ToolCreateTask     = "create_task"
	ToolQueueTargets   = "queue_targets"
	ToolGetStatus      = "get_status"
	ToolGetEvidence    = "get_evidence"
	ToolCheckCitations = "check_citations"
	ToolStopTask       = "stop_task"
	ToolFeedback       = "feedback"
	ToolListTasks      = "list_tasks"
	ToolPauseTask      = "pause_task"
	ToolResumeTask     = "resume_task"
	ToolTaskJobs       = "task_jobs"
	ToolRecheckTask    = "recheck_task"
)

// EvidenceResource is the URI template of a task's evidence as an MCP
// resource: its claims in E-number order, as the export (and get_evidence
// view claims) gives them.
const EvidenceResource = "evidencefleet://tasks/{task_id}/evidence"

// maxResourceClaims bounds the claims one read of a task's evidence
// resource holds; get_evidence pages through more.
const maxResourceClaims = 1000

// The hints of the tools (MCP tool annotations).
var (
	yes, no = true, false
	// reads: nothing changes
	reads = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
	// adds: something is made; doing it again makes another
	adds = &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	// sets: a state is set; doing it again changes nothing more
	sets = &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
)

// ErrNoOrganization: the call has no organization (no Options.Org, no
// bearer token naming one).
var ErrNoOrganization = errors.New("no organization: the server has none fixed and the call carries no organization token")

// New returns the MCP server of the fleet's operations on svc.
func New(svc *service.Service, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "evidencefleet", Version: version.String()}, &mcp.ServerOptions{
		Logger: opts.Logger,
		Instructions: "evidencefleet builds an evidence graph for a hypothesis: create_task, then queue_targets (URLs, DOIs, search queries), " +
			"poll get_status until pending is 0 or task_status is completed, then get_evidence; every claim has an E-number (E1 is the hypothesis) " +
			"and every piece of evidence an exact span of an exact page version. Cite claims as [E1] and check a text with check_citations.",
	})
	h := handlers{svc: svc, org: opts.Org}
	addTool(s, &mcp.Tool{Name: ToolCreateTask, Annotations: adds, Description: "Create a task whose hypothesis becomes claim E1; returns the task as the HTTP API does (id, organization_id, hypothesis, budget, retrieval, status, created_at); the other tools take its id as task_id."},
		h.createTask)
	addTool(s, &mcp.Tool{Name: ToolQueueTargets, Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &yes}, InputSchema: withEnum[QueueTargetsInput]([]string{"targets", "*", "kind"}, jobs.TargetURL, jobs.TargetDOI, jobs.TargetQuery),
		Description: "Queue targets of a task: URLs to fetch, DOIs to resolve, search queries whose results to fetch. A target already queued for the task is skipped. Reopens a completed task."},
		h.queueTargets)
	addTool(s, &mcp.Tool{Name: ToolGetStatus, Annotations: reads, Description: "Where a task stands: task_status (active, paused, completed, stopped), jobs by kind and state, pending and finished counts, claims by verdict, targets by status, problems, failed targets, blocked domains, models."},
		forOrg(h, func(ctx context.Context, org string, in TaskInput) (*service.Status, error) {
			return svc.Status(ctx, org, in.TaskID)
		}))
	addTool(s, &mcp.Tool{Name: ToolGetEvidence, Annotations: reads, InputSchema: withEnum[GetEvidenceInput]([]string{"view"}, ViewSpans, ViewClaims),
		Description: "A task's evidence, a page at a time. view=spans (default): evidence spans (page, page version, start_char, end_char, the version's text there, kind origin/supports/refutes/neutral, claim E-number, edge, model), optionally of one claim or one page. view=claims: one item per claim in E-number order with verdict, confidence, quote span and source."},
		h.getEvidence)
	addTool(s, &mcp.Tool{Name: ToolCheckCitations, Annotations: reads, Description: "Check the [E…] citations of a text against the task's claims: ids the task lacks, malformed groups, uncited ids, coverage, factual sentences citing nothing. Citations are validated, never generated."},
		forOrg(h, func(ctx context.Context, org string, in CheckCitationsInput) (*citation.Result, error) {
			return svc.CiteCheck(ctx, org, in.TaskID, in.Text)
		}))
	addTool(s, &mcp.Tool{Name: ToolStopTask, Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &yes, OpenWorldHint: &no}, InputSchema: withEnum[StopTaskInput]([]string{"cleanup"}, "", jobs.CleanupSoft, jobs.CleanupHard),
		Description: "Stop a task: its waiting jobs cancel themselves and nothing more is added. cleanup soft or hard also deletes its data."},
		h.stopTask)
	addTool(s, &mcp.Tool{Name: ToolFeedback, Annotations: adds, InputSchema: feedbackSchema(),
		Description: "A reviewer's correction, recorded with reason and reviewer. kind=claim: reject or restore a claim (verdict reject|restore). kind=edge: correct an NLI edge's relation (supports|refutes|neutral); the claim's posterior is recomputed."},
		h.feedback)
	addTool(s, &mcp.Tool{Name: ToolListTasks, Annotations: reads,
		Description: "The organization's tasks, newest first, a page at a time: id, status, hypothesis, created_at, updated_at, claims, targets, pages; next_cursor for the next page."},
		forOrg(h, func(ctx context.Context, org string, in ListTasksInput) (service.TaskPage, error) {
			return svc.ListTasks(ctx, org, in.Limit, in.Cursor)
		}))
	addTool(s, &mcp.Tool{Name: ToolPauseTask, Annotations: sets,
		Description: "Pause a task: no job of it starts until resume_task; running jobs finish. changed is false when it was paused already."},
		forOrg(h, func(ctx context.Context, org string, in TaskInput) (service.Lifecycle, error) {
			return svc.PauseTask(ctx, org, in.TaskID)
		}))
	addTool(s, &mcp.Tool{Name: ToolResumeTask, Annotations: sets,
		Description: "Resume a paused task: its jobs start again. changed is false when it was not paused."},
		forOrg(h, func(ctx context.Context, org string, in TaskInput) (service.Lifecycle, error) {
			return svc.ResumeTask(ctx, org, in.TaskID)
		}))
	addTool(s, &mcp.Tool{Name: ToolTaskJobs, Annotations: reads,
		Description: "A task's jobs, newest first, a page at a time: id, kind, state, attempt, when due, last error; optionally of one state (available, running, retryable, scheduled, completed, cancelled, discarded)."},
		forOrg(h, func(ctx context.Context, org string, in TaskJobsInput) (service.JobPage, error) {
			return svc.ListJobs(ctx, org, in.TaskID, in.State, in.Limit, in.Cursor)
		}))
	addTool(s, &mcp.Tool{Name: ToolRecheckTask, Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &yes},
		Description: "Check a task's cited sources again: fetch each page its claims and evidence quote and record whether every quote still stands there (unchanged, edited with the new text, moved, gone, unreachable); " +
			"get_evidence's claims view carries each quote's latest check and get_status sums them. Without every a round starts now; with every the task's schedule is set " +
			"(a duration of at least 1h such as 72h, never, or default) and a round starts only with now. already_waiting is true when a round was waiting or running."},
		forOrg(h, func(ctx context.Context, org string, in RecheckTaskInput) (service.RecheckStarted, error) {
			every, now, err := service.RecheckWanted(in.Every, in.Now)
			if err != nil {
				return service.RecheckStarted{TaskID: in.TaskID}, err
			}
			return svc.RecheckTask(ctx, org, in.TaskID, every, now)
		}))
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "task-evidence", URITemplate: EvidenceResource, MIMEType: "application/json",
		Title:       "A task's evidence",
		Description: fmt.Sprintf("The task's claims in E-number order with verdict, confidence, quote span and source, as get_evidence view claims gives them (the first %d; get_evidence pages through more).", maxResourceClaims)},
		h.readEvidence)
	return s
}

// addTool registers a tool whose calls are refused (a tool error naming
// the argument: "hypothesis: lone surrogate") when their arguments hold
// text that is not valid UTF-8 or a lone surrogate escape
// (jobs.CheckJSONText), which the SDK's decoder hands on as U+FFFD.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if req != nil && req.Params != nil {
			if err := jobs.CheckJSONText(req.Params.Arguments); err != nil {
				var none Out
				return nil, none, err
			}
		}
		return h(ctx, req, in)
	})
}

// HTTPHandler serves New(svc, Options{}) over the streamable HTTP transport
// behind a bearer-token check: a request without a token verify accepts
// gets 401, and each call acts for the organization in the token's UserID.
// A token need not carry an expiration; one that does is enforced. The
// transport is stateless (no Mcp-Session-Id): the tools need no session,
// any replica of the API answers any request, and no session outlives its
// request in the process.
func HTTPHandler(svc *service.Service, verify auth.TokenVerifier) http.Handler {
	srv := New(svc, Options{})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

type handlers struct {
	svc *service.Service
	org string
}

// orgOf is the organization a call acts for.
// TokenIDKey is the key of the API token's id in TokenInfo.Extra: feedback
// records the token it came through.
const TokenIDKey = "token_id"

// tokenOf is the id of the API token of the request (0 when none: stdio).
func tokenOf(req *mcp.CallToolRequest) int64 {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if id, ok := req.Extra.TokenInfo.Extra[TokenIDKey].(int64); ok {
			return id
		}
	}
	return 0
}

func (h handlers) orgOf(req *mcp.CallToolRequest) (string, error) {
	if req == nil {
		return h.orgOfExtra(nil)
	}
	return h.orgOfExtra(req.Extra)
}

// forOrg is the tool handler that calls op with the call's organization
// and its input, and answers with what op returns.
func forOrg[In, Out any](h handlers, op func(ctx context.Context, org string, in In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		org, err := h.orgOf(req)
		if err != nil {
			var none Out
			return nil, none, err
		}
		out, err := op(ctx, org, in)
		return nil, out, err
	}
}

// orgOfExtra is the organization of a request with extra (nil: none).
func (h handlers) orgOfExtra(extra *mcp.RequestExtra) (string, error) {
	if h.org != "" {
		return h.org, nil
	}
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return extra.TokenInfo.UserID, nil
	}
	return "", ErrNoOrganization
}

// CreateTaskInput is create_task's input.
type CreateTaskInput struct {
	Hypothesis string `json:"hypothesis" jsonschema:"the hypothesis to gather evidence for, one sentence; it becomes claim E1"`
	Budget     string `json:"budget,omitempty" jsonschema:"the task's budget class: minimal, standard (the default) or deep"`
	Retrieval  string `json:"retrieval,omitempty" jsonschema:"given (the default: only the targets you queue) or self_directed (the fleet also searches for the task's claims itself)"`
	// IdempotencyKey makes a retried call return the first call's task.
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"optional: a key of yours; calling again with it returns the task the first call made instead of making another"`
}

func (h handlers) createTask(ctx context.Context, req *mcp.CallToolRequest, in CreateTaskInput) (*mcp.CallToolResult, service.CreatedTask, error) {
	org, err := h.orgOf(req)
	if err != nil {
		return nil, service.CreatedTask{}, err
	}
	if strings.TrimSpace(in.Hypothesis) == "" {
		return nil, service.CreatedTask{}, fmt.Errorf("hypothesis: required")
	}
	task, _, err := h.svc.CreateTaskOnce(ctx, org, intake.TaskSpec{Hypothesis: in.Hypothesis, Budget: in.Budget, Retrieval: in.Retrieval, IdempotencyKey: in.IdempotencyKey})
	return nil, task, err
}

// TargetInput is one target of queue_targets.
type TargetInput struct {
	Kind  string `json:"kind" jsonschema:"url, doi or query"`
	Value string `json:"value" jsonschema:"the URL (http or https), the DOI (10.xxxx/…, doi:10.xxxx/… or https://doi.org/10.xxxx/…) or the search query"`
}

// QueueTargetsInput is queue_targets' input.
type QueueTargetsInput struct {
	TaskID  int64         `json:"task_id" jsonschema:"the task's id, from create_task"`
	Targets []TargetInput `json:"targets" jsonschema:"the targets to queue, at least one"`
}

func (h handlers) queueTargets(ctx context.Context, req *mcp.CallToolRequest, in QueueTargetsInput) (*mcp.CallToolResult, service.TargetsAdded, error) {
	out := service.TargetsAdded{TaskID: in.TaskID}
	org, err := h.orgOf(req)
	if err != nil {
		return nil, out, err
	}
	targets := make([]jobs.Target, len(in.Targets))
	for i, t := range in.Targets {
		targets[i] = jobs.Target{Kind: t.Kind, Value: t.Value}
	}
	out, err = h.svc.AddTargets(ctx, org, in.TaskID, targets)
	return nil, out, err
}

// TaskInput names a task.
type TaskInput struct {
	TaskID int64 `json:"task_id" jsonschema:"the task's id, from create_task"`
}

// get_evidence's views.
const (
	ViewSpans  = "spans"
	ViewClaims = "claims"
)

// GetEvidenceInput is get_evidence's input.
type GetEvidenceInput struct {
	TaskID  int64  `json:"task_id" jsonschema:"the task's id, from create_task"`
	View    string `json:"view,omitempty" jsonschema:"spans (default): evidence spans; claims: one item per claim with verdict, confidence and quote"`
	ClaimID int64  `json:"claim_id,omitempty" jsonschema:"view spans only: list the evidence of this claim (any claim of the organization's) instead of the whole task's"`
	PageID  int64  `json:"page_id,omitempty" jsonschema:"view spans only: list the evidence on this page (the organization's claims' evidence there, any task of it) instead of the whole task's"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many spans (1 to 1000, default 100) or claims (1 to 1000, default 1000)"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page; empty for the first page"`
}

// Evidence is get_evidence's output: the spans (view spans) or the claims
// (view claims) of one page, and the cursor of the next page ("" at the
// end).
type Evidence struct {
	TaskID int64  `json:"task_id"`
	View   string `json:"view"`
	// Items are the spans (service.EvidenceSpan, as GET
	// /v1/tasks/{task_id}/evidence lists them) or the claims
	// (service.ExportItem, as GET /v1/tasks/{task_id}/export does).
	Items any    `json:"items" jsonschema:"the spans (view spans) or the claims (view claims) of this page"`
	Next  string `json:"next_cursor,omitempty"`
}

func (h handlers) getEvidence(ctx context.Context, req *mcp.CallToolRequest, in GetEvidenceInput) (*mcp.CallToolResult, Evidence, error) {
	out := Evidence{TaskID: in.TaskID, View: in.View}
	if out.View == "" {
		out.View = ViewSpans
	}
	org, err := h.orgOf(req)
	if err != nil {
		return nil, out, err
	}
	switch {
	case out.View != ViewSpans && out.View != ViewClaims:
		return nil, out, fmt.Errorf("view %q: want spans or claims", in.View)
	case in.ClaimID > 0 && in.PageID > 0:
		return nil, out, fmt.Errorf("claim_id and page_id: give at most one")
	case out.View == ViewClaims && (in.ClaimID > 0 || in.PageID > 0):
		return nil, out, fmt.Errorf("claim_id and page_id: view claims lists the whole task")
	case in.Limit < 0:
		return nil, out, fmt.Errorf("limit %d: want 1 to 1000", in.Limit)
	}
	if out.View == ViewClaims {
		after := 0
		if in.Cursor != "" {
			if after, err = strconv.Atoi(in.Cursor); err != nil || after < 0 {
				return nil, out, fmt.Errorf("cursor %q is not one this tool gave", in.Cursor)
			}
		}
		page, err := h.svc.Export(ctx, org, in.TaskID, after, in.Limit)
		if err != nil {
			return nil, out, err
		}
		out.Items = page.Items
		if page.Next > 0 {
			out.Next = strconv.Itoa(page.Next)
		}
		return nil, out, nil
	}
	f := service.EvidenceFilter{TaskID: in.TaskID}
	if in.ClaimID > 0 || in.PageID > 0 {
		// the task must be the organization's whatever the filter
		if _, err := h.svc.Task(ctx, org, in.TaskID); err != nil {
			return nil, out, err
		}
		f = service.EvidenceFilter{ClaimID: in.ClaimID, PageID: in.PageID}
	}
	page, err := h.svc.EvidenceList(ctx, org, f, in.Limit, in.Cursor)
	if err != nil {
		return nil, out, err
	}
	out.Items, out.Next = page.Evidence, page.Next
	return nil, out, nil
}

// CheckCitationsInput is check_citations' input.
type CheckCitationsInput struct {
	TaskID int64  `json:"task_id" jsonschema:"the task whose claims the text cites"`
	Text   string `json:"text" jsonschema:"the text to check, citing claims as [E1] or [E1, E5]"`
}

// RecheckTaskInput is recheck_task's input.
type RecheckTaskInput struct {
	TaskID int64  `json:"task_id" jsonschema:"the task whose cited sources to check again"`
	Every  string `json:"every,omitempty" jsonschema:"the task's interval between rounds: a duration of at least 1h (72h), never, or default (the fleet's); empty leaves it"`
	Now    bool   `json:"now,omitempty" jsonschema:"with every: start a round now too (without every a round always starts)"`
}

// StopTaskInput is stop_task's input.
type StopTaskInput struct {
	TaskID  int64  `json:"task_id" jsonschema:"the task to stop"`
	Cleanup string `json:"cleanup,omitempty" jsonschema:"empty: stop only; soft: also delete the task's claims, edges, rankings and targets (nothing shared); hard: soft, then delete the pages and page versions no task reaches"`
}

func (h handlers) stopTask(ctx context.Context, req *mcp.CallToolRequest, in StopTaskInput) (*mcp.CallToolResult, service.Stopped, error) {
	org, err := h.orgOf(req)
	if err != nil {
		return nil, service.Stopped{TaskID: in.TaskID}, err
	}
	out, err := h.svc.StopTask(ctx, org, in.TaskID, in.Cleanup)
	return nil, out, err
}

// feedback's kinds.
const (
	FeedbackClaim = "claim"
	FeedbackEdge  = "edge"
)

// FeedbackInput is feedback's input: a claim's rejection or restoration
// (kind claim) or an NLI edge's correction (kind edge).
type FeedbackInput struct {
	Kind     string `json:"kind" jsonschema:"claim: reject or restore a claim; edge: correct an NLI edge's relation"`
	ClaimID  int64  `json:"claim_id,omitempty" jsonschema:"kind claim: the claim's id (claim_id of get_evidence's spans)"`
	Verdict  string `json:"verdict,omitempty" jsonschema:"kind claim: reject or restore"`
	EdgeID   int64  `json:"edge_id,omitempty" jsonschema:"kind edge: the edge's id (source.edge_id of get_evidence's spans)"`
	Relation string `json:"relation,omitempty" jsonschema:"kind edge: supports, refutes or neutral"`
	Reason   string `json:"reason" jsonschema:"why, recorded with the change"`
	By       string `json:"by" jsonschema:"who, recorded with the change"`
}

// Feedback is feedback's output: the claim's (kind claim) or the edge's
// (kind edge) result.
type Feedback struct {
	Kind  string                        `json:"kind"`
	Claim *service.ClaimFeedbackResult  `json:"claim,omitempty"`
	Edge  *service.EdgeCorrectionResult `json:"edge,omitempty"`
}

func feedbackSchema() *jsonschema.Schema {
	s := withEnum[FeedbackInput]([]string{"kind"}, FeedbackClaim, FeedbackEdge)
	setEnum(s, []string{"verdict"}, "reject", "restore")
	setEnum(s, []string{"relation"}, "supports", "refutes", "neutral")
	return s
}

func (h handlers) feedback(ctx context.Context, req *mcp.CallToolRequest, in FeedbackInput) (*mcp.CallToolResult, Feedback, error) {
	out := Feedback{Kind: in.Kind}
	org, err := h.orgOf(req)
	if err != nil {
		return nil, out, err
	}
	switch {
	case strings.TrimSpace(in.Reason) == "":
		return nil, out, fmt.Errorf("reason: required (every change is recorded with why)")
	case strings.TrimSpace(in.By) == "":
		return nil, out, fmt.Errorf("by: required (every change is recorded with who)")
	}
	switch in.Kind {
	case FeedbackClaim:
		if in.ClaimID <= 0 {
			return nil, out, fmt.Errorf("claim_id: required for kind claim")
		}
		if in.Verdict != "reject" && in.Verdict != "restore" {
			return nil, out, fmt.Errorf("verdict %q: want reject or restore", in.Verdict)
		}
		res, err := h.svc.ClaimFeedback(ctx, org, service.ClaimVerdictFeedback{ClaimID: in.ClaimID, Reject: in.Verdict == "reject", Reason: in.Reason, By: in.By, TokenID: tokenOf(req)})
		if err != nil {
			return nil, out, err
		}
		out.Claim = &res
	case FeedbackEdge:
		if in.EdgeID <= 0 {
			return nil, out, fmt.Errorf("edge_id: required for kind edge")
		}
		switch in.Relation {
		case "supports", "refutes", "neutral":
		default:
			return nil, out, fmt.Errorf("relation %q: want supports, refutes or neutral", in.Relation)
		}
		res, err := h.svc.CorrectEdge(ctx, org, service.EdgeCorrection{EdgeID: in.EdgeID, Relation: in.Relation, Reason: in.Reason, By: in.By, TokenID: tokenOf(req)})
		if err != nil {
			return nil, out, err
		}
		out.Edge = &res
	default:
		return nil, out, fmt.Errorf("kind %q: want claim or edge", in.Kind)
	}
	return nil, out, nil
}

// withEnum is T's inferred input schema with the property at path (a "*"
// step is an array's items) limited to values.
func withEnum[T any](path []string, values ...string) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	setEnum(s, path, values...)
	return s
}

func setEnum(s *jsonschema.Schema, path []string, values ...string) {
	for _, step := range path {
		if step == "*" {
			s = s.Items
		} else {
			s = s.Properties[step]
		}
		if s == nil {
			panic(fmt.Sprintf("schema has no %v", path))
		}
	}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
}

// ListTasksInput is list_tasks' input.
type ListTasksInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many tasks (1 to 1000, default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page; empty for the first page"`
}

// TaskJobsInput is task_jobs' input.
type TaskJobsInput struct {
	TaskID int64  `json:"task_id" jsonschema:"the task's id, from create_task or list_tasks"`
	State  string `json:"state,omitempty" jsonschema:"only jobs in this state (available, running, retryable, scheduled, completed, cancelled, discarded); empty for all"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many jobs (1 to 1000, default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page; empty for the first page"`
}

// readEvidence reads a task's evidence resource (EvidenceResource): the
// organization's task only; another's, or one that does not exist, is
// not found.
func (h handlers) readEvidence(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	org, err := h.orgOfExtra(req.Extra)
	if err != nil {
		return nil, err
	}
	rest, ok := strings.CutPrefix(uri, "evidencefleet://tasks/")
	id, ok2 := strings.CutSuffix(rest, "/evidence")
	taskID, perr := strconv.ParseInt(id, 10, 64)
	if !ok || !ok2 || perr != nil || taskID <= 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	page, err := h.svc.Export(ctx, org, taskID, 0, maxResourceClaims)
	if errors.Is(err, errs.ErrTaskNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(page.Items)
	if err != nil {
		return nil, fmt.Errorf("evidence of task %d: %w", taskID, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}
