package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"

	"github.com/evidencefleet/evidencefleet/internal/metrics"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// handlers are the /v1 operations, each one call of the service layer
// with the caller's organization.
type handlers struct {
	svc     *service.Service
	log     *slog.Logger
	events  EventOptions
	limits  Limiter
	metrics *metrics.Metrics
	// tokenLive re-checks an open stream's token (nil: not re-checked)
	tokenLive func(ctx context.Context, tokenID int64) (bool, error)
}

// Bounds of request bodies: past them a request is 413.
const (
	MaxBodyBytes = 1 << 20 // claims, targets, feedback
	// MaxCiteCheckBytes bounds a citation check's body: the longest text
	// the check reads (citation.MaxTextBytes) in its JSON object. A JSON
	// escape is never shorter than what it decodes to, so the text of any
	// body within this bound is within the check's.
	MaxCiteCheckBytes = citation.MaxTextBytes + len(`{"text":""}`)
	maxCursorLength   = 200
)

// bodyLimit is huma's Operation.MaxBodyBytes of a body of at most n bytes
// (huma refuses a body that fills its limit).
func bodyLimit(n int) int64 { return int64(n) + 1 }

// Inputs shared by the operations (exported so huma can fill them in
// where they are embedded).
type (
	// TaskPath names a task of the caller's organization.
	TaskPath struct {
		TaskID int64 `path:"task_id" minimum:"1" doc:"The task's id."`
	}
	// PageQuery is a page of a list.
	PageQuery struct {
		Limit  int    `query:"limit" minimum:"0" maximum:"1000" doc:"Page size; 0 takes the operation's default."`
		Cursor string `query:"cursor" maxLength:"200" doc:"The next_cursor of the previous page; empty for the first."`
	}
)

func (h *handlers) register(api huma.API) {
	op := func(id, method, path, summary string, tags ...string) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: tags, MaxBodyBytes: bodyLimit(MaxBodyBytes),
			Errors: []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict,
				http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusServiceUnavailable}}
	}
	created := op("create-task", http.MethodPost, "/v1/tasks", "Create a task; its hypothesis becomes claim E1", "tasks")
	created.DefaultStatus = http.StatusCreated
	created.Responses = map[string]*huma.Response{"200": {
		Description: "The task an earlier create with this Idempotency-Key made (nothing new was made).",
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[service.CreatedTask](), true, "CreatedTask")}},
	}}
	huma.Register(api, created, h.createTask)
	huma.Register(api, op("list-tasks", http.MethodGet, "/v1/tasks", "The organization's tasks, newest first", "tasks"), h.listTasks)
	huma.Register(api, op("get-task", http.MethodGet, "/v1/tasks/{task_id}", "One task with its counts", "tasks"), h.getTask)
	huma.Register(api, op("add-claims", http.MethodPost, "/v1/tasks/{task_id}/claims", "Add hypothesis claims to a task", "tasks"), h.addClaims)
	huma.Register(api, op("add-targets", http.MethodPost, "/v1/tasks/{task_id}/targets", "Add URL, DOI or search-query targets to a task", "tasks"), h.addTargets)
	huma.Register(api, op("get-status", http.MethodGet, "/v1/tasks/{task_id}/status", "A task's progress: jobs by kind and state, verdicts, targets, problems, models", "tasks"), h.status)
	huma.Register(api, op("stop-task", http.MethodPost, "/v1/tasks/{task_id}/stop", "Stop a task, optionally deleting its data (cleanup soft or hard)", "tasks"), h.stopTask)
	huma.Register(api, op("list-evidence", http.MethodGet, "/v1/tasks/{task_id}/evidence", "Evidence of record: exact spans of exact page versions, paged", "evidence"), h.evidence)
	huma.Register(api, op("list-claim-evidence", http.MethodGet, "/v1/claims/{claim_id}/evidence", "Evidence of record of one claim, paged", "evidence"), h.claimEvidence)
	huma.Register(api, op("list-page-evidence", http.MethodGet, "/v1/pages/{page_id}/evidence", "Evidence of record on one page, across the organization's tasks, paged", "evidence"), h.pageEvidence)
	huma.Register(api, op("export-evidence", http.MethodGet, "/v1/tasks/{task_id}/export", "The task's claims as evidence items (the JSONL export of enqueue evidence), paged", "evidence"), h.export)
	huma.Register(api, op("get-graph", http.MethodGet, "/v1/tasks/{task_id}/graph", "The task's evidence graph: claims, edges, pages, ranking, citations", "evidence"), h.graph)
	huma.Register(api, op("get-materials", http.MethodGet, "/v1/tasks/{task_id}/materials", "The task's reading list for a query (default: its hypothesis)", "evidence"), h.materials)
	cite := op("check-citations", http.MethodPost, "/v1/tasks/{task_id}/citations/check", "Check the [E…] citations of a text against the task's claims", "evidence")
	cite.MaxBodyBytes = bodyLimit(MaxCiteCheckBytes)
	huma.Register(api, cite, h.citeCheck)
	huma.Register(api, op("list-jobs", http.MethodGet, "/v1/tasks/{task_id}/jobs", "The task's jobs, newest first", "jobs"), h.listJobs)
	huma.Register(api, op("retry-job", http.MethodPost, "/v1/jobs/{job_id}/retry", "Run a job of one of the organization's tasks again now (River's JobRetry)", "jobs"), h.retryJob)
	huma.Register(api, op("cancel-job", http.MethodPost, "/v1/jobs/{job_id}/cancel", "Cancel a job of one of the organization's tasks (River's JobCancel)", "jobs"), h.cancelJob)
	huma.Register(api, op("claim-feedback", http.MethodPost, "/v1/claims/{claim_id}/feedback", "A reviewer rejects or restores a claim", "feedback"), h.claimFeedback)
	huma.Register(api, op("correct-edge", http.MethodPost, "/v1/edges/{edge_id}/correction", "A reviewer corrects an NLI edge's relation", "feedback"), h.correctEdge)
	h.registerRetrieval(api, op)
	h.registerDomains(api, op)
	h.registerEvents(api, op(eventsOperation, http.MethodGet, "/v1/tasks/{task_id}/events", "Server-Sent Events of a task's progress until it is completed or stopped", "tasks"))
	h.registerLifecycle(api, op)
	h.registerLinks(api, op)
	h.registerProposals(api, op)
}

// problem turns a service error into the HTTP answer: 404 for rows the
// organization cannot see, 400 for refused input (the message names the
// field), 413 for a text past the citation check's bound, 409 for a
// stopped task or a change it takes only while paused, 500 (logged, not
// shown) otherwise.
func (h *handlers) problem(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errs.ErrTaskNotFound), errors.Is(err, errs.ErrClaimNotFound), errors.Is(err, errs.ErrPageNotFound),
		errors.Is(err, errs.ErrEdgeNotFound), errors.Is(err, service.ErrJobNotFound):
		return huma.Error404NotFound(err.Error())
	case errors.Is(err, intake.ErrIdempotencyConflict):
		return newProblem(http.StatusConflict, codeIdempotencyConflict, err.Error())
	case errors.Is(err, citation.ErrTooLarge):
		return huma.Error413RequestEntityTooLarge(err.Error())
	case errors.Is(err, errs.ErrBadInput), errors.Is(err, service.ErrBadRequest):
		return huma.Error400BadRequest(err.Error())
	case errors.Is(err, errs.ErrTaskStopped):
		return newProblem(http.StatusConflict, codeTaskStopped, err.Error())
	case errors.Is(err, service.ErrTaskNotPaused):
		return newProblem(http.StatusConflict, codeTaskNotPaused, err.Error())
	case errors.Is(err, context.Canceled):
		return huma.NewError(499, "request cancelled")
	}
	h.log.ErrorContext(ctx, "api: operation failed", "err", err)
	return huma.Error500InternalServerError("internal error; the fleet's log has the cause")
}

// org is the caller's organization.
func org(ctx context.Context) string { return callerOf(ctx).Org }

// body wraps an output as a response body.
type body[T any] struct {
	Body T
}

type createTaskInput struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"200" doc:"Makes the create safe to retry: a create with a key this organization used before answers 200 with the task the first made (the same hypothesis, budget and retrieval, else 409) instead of making another."`
	Body           struct {
		Hypothesis string `json:"hypothesis" minLength:"1" maxLength:"20000" doc:"The hypothesis to check; it becomes claim E1."`
		Budget     string `json:"budget,omitempty" enum:"minimal,standard,deep" default:"standard" doc:"The task's budget class: what its self-directed retrieval may spend."`
		Retrieval  string `json:"retrieval,omitempty" enum:"given,self_directed" default:"given" doc:"given: only the targets you add are fetched; self_directed: the fleet also searches for the task's claims itself (EVOI-selected, budgeted, every decision a task event)."`
	}
}

// createTaskOutput is 201 with a new task, 200 with the task an earlier
// create of the same idempotency key made.
type createTaskOutput struct {
	Status   int
	Location string `header:"Location" doc:"The new task's address (201 only)."`
	Body     service.CreatedTask
}

func (h *handlers) createTask(ctx context.Context, in *createTaskInput) (*createTaskOutput, error) {
	t, created, err := h.svc.CreateTaskOnce(ctx, org(ctx), intake.TaskSpec{Hypothesis: in.Body.Hypothesis, Budget: in.Body.Budget,
		Retrieval: in.Body.Retrieval, IdempotencyKey: in.IdempotencyKey})
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	out := &createTaskOutput{Status: http.StatusOK, Body: t}
	if created {
		out.Status, out.Location = http.StatusCreated, "/v1/tasks/"+strconv.FormatInt(t.TaskID, 10)
	}
	return out, nil
}

func (h *handlers) listTasks(ctx context.Context, in *PageQuery) (*body[service.TaskPage], error) {
	p, err := h.svc.ListTasks(ctx, org(ctx), in.Limit, in.Cursor)
	return &body[service.TaskPage]{p}, h.problem(ctx, err)
}

func (h *handlers) getTask(ctx context.Context, in *TaskPath) (*body[service.TaskDetail], error) {
	d, err := h.svc.ShowTask(ctx, org(ctx), in.TaskID)
	return &body[service.TaskDetail]{d}, h.problem(ctx, err)
}

type addClaimsInput struct {
	TaskPath
	Body struct {
		Claims []string `json:"claims" minItems:"1" maxItems:"10000" doc:"Claim texts; one already on the task returns the existing claim."`
	}
}

// AddedClaims are the claims as added.
type AddedClaims struct {
	TaskID int64               `json:"task_id"`
	Claims []intake.AddedClaim `json:"claims"`
}

func (h *handlers) addClaims(ctx context.Context, in *addClaimsInput) (*body[AddedClaims], error) {
	added, err := h.svc.AddClaims(ctx, org(ctx), in.TaskID, in.Body.Claims)
	return &body[AddedClaims]{AddedClaims{TaskID: in.TaskID, Claims: added}}, h.problem(ctx, err)
}

// TargetIn is one target to add.
type TargetIn struct {
	Kind  string `json:"kind" enum:"url,doi,query" doc:"What the value is."`
	Value string `json:"value" minLength:"1" maxLength:"8192" doc:"The URL, DOI or search query."`
}

type addTargetsInput struct {
	TaskPath
	Body struct {
		Targets []TargetIn `json:"targets" minItems:"1" maxItems:"10000"`
	}
}

func (h *handlers) addTargets(ctx context.Context, in *addTargetsInput) (*body[service.TargetsAdded], error) {
	targets := make([]jobs.Target, len(in.Body.Targets))
	for i, t := range in.Body.Targets {
		targets[i] = jobs.Target{Kind: t.Kind, Value: t.Value}
	}
	res, err := h.svc.AddTargets(ctx, org(ctx), in.TaskID, targets)
	return &body[service.TargetsAdded]{res}, h.problem(ctx, err)
}

func (h *handlers) status(ctx context.Context, in *TaskPath) (*body[service.Status], error) {
	st, err := h.svc.Status(ctx, org(ctx), in.TaskID)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	return &body[service.Status]{*st}, nil
}

type stopInput struct {
	TaskPath
	Body struct {
		Cleanup string `json:"cleanup,omitempty" enum:"none,soft,hard" default:"none" doc:"none keeps the task's data; soft and hard delete it (hard also its pages no other task needs)."`
	}
}

func (h *handlers) stopTask(ctx context.Context, in *stopInput) (*body[service.Stopped], error) {
	cleanup := in.Body.Cleanup
	if cleanup == "none" {
		cleanup = ""
	}
	res, err := h.svc.StopTask(ctx, org(ctx), in.TaskID, cleanup)
	return &body[service.Stopped]{res}, h.problem(ctx, err)
}

type evidenceInput struct {
	TaskPath
	PageQuery
}

func (h *handlers) evidence(ctx context.Context, in *evidenceInput) (*body[service.EvidencePage], error) {
	return h.evidenceOf(ctx, service.EvidenceFilter{TaskID: in.TaskID}, in.PageQuery)
}

type claimEvidenceInput struct {
	ClaimID int64 `path:"claim_id" minimum:"1" doc:"The claim's id."`
	PageQuery
}

func (h *handlers) claimEvidence(ctx context.Context, in *claimEvidenceInput) (*body[service.EvidencePage], error) {
	return h.evidenceOf(ctx, service.EvidenceFilter{ClaimID: in.ClaimID}, in.PageQuery)
}

type pageEvidenceInput struct {
	PageID int64 `path:"page_id" minimum:"1" doc:"The page's id; it must have been reached through a task of the organization."`
	PageQuery
}

func (h *handlers) pageEvidence(ctx context.Context, in *pageEvidenceInput) (*body[service.EvidencePage], error) {
	return h.evidenceOf(ctx, service.EvidenceFilter{PageID: in.PageID}, in.PageQuery)
}

func (h *handlers) evidenceOf(ctx context.Context, f service.EvidenceFilter, page PageQuery) (*body[service.EvidencePage], error) {
	p, err := h.svc.EvidenceList(ctx, org(ctx), f, page.Limit, page.Cursor)
	return &body[service.EvidencePage]{p}, h.problem(ctx, err)
}

// ExportPage is one page of a task's evidence export.
type ExportPage struct {
	Items      []service.ExportItem `json:"items"`
	NextCursor string               `json:"next_cursor,omitempty" doc:"Pass as cursor for the next page; absent on the last."`
}

type exportInput struct {
	TaskPath
	PageQuery
}

func (h *handlers) export(ctx context.Context, in *exportInput) (*body[ExportPage], error) {
	after := 0
	if in.Cursor != "" {
		n, err := strconv.Atoi(in.Cursor)
		if err != nil || n < 0 {
			return nil, huma.Error400BadRequest(fmt.Sprintf("cursor %q: not a cursor of this export", in.Cursor))
		}
		after = n
	}
	p, err := h.svc.Export(ctx, org(ctx), in.TaskID, after, in.Limit)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	out := ExportPage{Items: p.Items}
	if p.Next > 0 {
		out.NextCursor = strconv.Itoa(p.Next)
	}
	return &body[ExportPage]{out}, nil
}

func (h *handlers) graph(ctx context.Context, in *TaskPath) (*body[service.Graph], error) {
	g, err := h.svc.Graph(ctx, org(ctx), in.TaskID)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	return &body[service.Graph]{*g}, nil
}

type materialsInput struct {
	TaskPath
	Query string `query:"query" maxLength:"2000" doc:"Rank for this query instead of the task's hypothesis."`
}

func (h *handlers) materials(ctx context.Context, in *materialsInput) (*body[service.Materials], error) {
	m, err := h.svc.Materials(ctx, org(ctx), in.TaskID, in.Query)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	return &body[service.Materials]{*m}, nil
}

type citeInput struct {
	TaskPath
	Body struct {
		Text string `json:"text" minLength:"1" doc:"A report whose [E…] citations are checked."`
	}
}

func (h *handlers) citeCheck(ctx context.Context, in *citeInput) (*body[citation.Result], error) {
	res, err := h.svc.CiteCheck(ctx, org(ctx), in.TaskID, in.Body.Text)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	return &body[citation.Result]{*res}, nil
}

type jobsInput struct {
	TaskPath
	PageQuery
	State string `query:"state" enum:",available,cancelled,completed,discarded,pending,retryable,running,scheduled" doc:"Only jobs in this state."`
}

func (h *handlers) listJobs(ctx context.Context, in *jobsInput) (*body[service.JobPage], error) {
	p, err := h.svc.ListJobs(ctx, org(ctx), in.TaskID, in.State, in.Limit, in.Cursor)
	return &body[service.JobPage]{p}, h.problem(ctx, err)
}

type jobPath struct {
	JobID int64 `path:"job_id" minimum:"1" doc:"The job's id (River's)."`
}

func (h *handlers) retryJob(ctx context.Context, in *jobPath) (*body[service.JobAction], error) {
	res, err := h.svc.RetryJob(ctx, org(ctx), in.JobID)
	return &body[service.JobAction]{res}, h.problem(ctx, err)
}

type cancelJobInput struct {
	JobID int64 `path:"job_id" minimum:"1" doc:"The job's id (River's)."`
	Body  *struct {
		Reason   string `json:"reason,omitempty" maxLength:"2000" doc:"Why, recorded in the job's errors and on its target."`
		Reviewer string `json:"reviewer,omitempty" maxLength:"200" doc:"Who, recorded beside the token's id."`
	} `required:"false"`
}

func (h *handlers) cancelJob(ctx context.Context, in *cancelJobInput) (*body[service.JobAction], error) {
	c := service.JobCancel{JobID: in.JobID, By: reviewer(ctx, "")}
	if in.Body != nil {
		c.Reason, c.By = in.Body.Reason, reviewer(ctx, in.Body.Reviewer)
	}
	res, err := h.svc.CancelJob(ctx, org(ctx), c)
	return &body[service.JobAction]{res}, h.problem(ctx, err)
}

// reviewer is who a feedback is recorded as: the token, and the name the
// reviewer gave.
func reviewer(ctx context.Context, name string) string {
	by := fmt.Sprintf("api token %d", callerOf(ctx).TokenID)
	if name != "" {
		by += " (" + name + ")"
	}
	return by
}

type claimFeedbackInput struct {
	ClaimID int64 `path:"claim_id" minimum:"1"`
	Body    struct {
		Action   string `json:"action" enum:"reject,restore" doc:"reject: the claim is wrong whatever its edges say; restore: judge it by its edges again."`
		Reason   string `json:"reason,omitempty" maxLength:"2000"`
		Reviewer string `json:"reviewer,omitempty" maxLength:"200" doc:"Who the reviewer is, recorded beside the token's id."`
	}
}

func (h *handlers) claimFeedback(ctx context.Context, in *claimFeedbackInput) (*body[service.ClaimFeedbackResult], error) {
	res, err := h.svc.ClaimFeedback(ctx, org(ctx), service.ClaimVerdictFeedback{
		ClaimID: in.ClaimID, Reject: in.Body.Action == "reject", Reason: in.Body.Reason, By: reviewer(ctx, in.Body.Reviewer),
		TokenID: callerOf(ctx).TokenID})
	return &body[service.ClaimFeedbackResult]{res}, h.problem(ctx, err)
}

type correctEdgeInput struct {
	EdgeID int64 `path:"edge_id" minimum:"1"`
	Body   struct {
		Relation string `json:"relation" enum:"supports,refutes,neutral" doc:"The relation the edge should have."`
		Reason   string `json:"reason,omitempty" maxLength:"2000"`
		Reviewer string `json:"reviewer,omitempty" maxLength:"200"`
	}
}

func (h *handlers) correctEdge(ctx context.Context, in *correctEdgeInput) (*body[service.EdgeCorrectionResult], error) {
	res, err := h.svc.CorrectEdge(ctx, org(ctx), service.EdgeCorrection{
		EdgeID: in.EdgeID, Relation: in.Body.Relation, Reason: in.Body.Reason, By: reviewer(ctx, in.Body.Reviewer),
		TokenID: callerOf(ctx).TokenID})
	return &body[service.EdgeCorrectionResult]{res}, h.problem(ctx, err)
}
