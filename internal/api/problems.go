package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Problem is the body of every error the API answers, on /v1 and for a
// path or method it does not serve (RFC 9457 problem details, served as
// application/problem+json). Code is the stable, machine-readable name of
// what went wrong (ProblemCodes lists them all); Type is where that code
// is described, relative to the API's own address.
type Problem struct {
	Type   string              `json:"type" format:"uri-reference" example:"/v1/problems/not_found" doc:"Where the problem's code is described: /v1/problems/{code}."`
	Title  string              `json:"title" example:"Not Found" doc:"The HTTP status's text."`
	Status int                 `json:"status" example:"404" doc:"The HTTP status."`
	Code   string              `json:"code" example:"not_found" doc:"What went wrong, stable across releases: one of GET /v1/problems."`
	Detail string              `json:"detail,omitempty" example:"task 7 does not exist" doc:"This occurrence, in words; names the field at fault."`
	Errors []*huma.ErrorDetail `json:"errors,omitempty" doc:"The fields at fault, each with its location (body.claims[2], query.limit)."`
}

// Error is the problem's detail.
func (p *Problem) Error() string { return p.Detail }

// GetStatus is the problem's HTTP status (huma.StatusError).
func (p *Problem) GetStatus() int { return p.Status }

// ContentType serves a problem as application/problem+json.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" {
		return "application/problem+json"
	}
	return ct
}

// ProblemCode describes one code a Problem can carry.
type ProblemCode struct {
	Code        string `json:"code" doc:"The code."`
	Status      int    `json:"status" doc:"The HTTP status it comes with."`
	Description string `json:"description" doc:"What it means and what to do."`
}

// The codes whose status is shared by another code; the rest are each
// their status's only one (codeByStatus).
const (
	codeRouteNotFound        = "route_not_found"
	codeIdempotencyConflict  = "idempotency_key_reused"
	codeTaskStopped          = "task_stopped"
	codeTaskNotPaused        = "task_not_paused"
	codeTooManyStreams       = "too_many_streams"
	codeTooManyInvalidTokens = "too_many_invalid_tokens"
)

// ProblemCodes are every code the API answers with, by status.
var ProblemCodes = []ProblemCode{
	{"invalid_request", http.StatusBadRequest, "The body, a path parameter or a query parameter is not what the operation takes; detail and errors name the field (body.claims[2], query.limit)."},
	{"unauthenticated", http.StatusUnauthorized, "No bearer token, or one that is malformed, unknown, revoked or expired. Send Authorization: Bearer TOKEN with an organization token."},
	{"forbidden", http.StatusForbidden, "The token may not do this: an operator token on an organization's route, or a browser request without the operator's session and form token."},
	{"not_found", http.StatusNotFound, "The task, claim, page, edge or job does not exist, or is another organization's (the two are not told apart)."},
	{codeRouteNotFound, http.StatusNotFound, "No operation at this path; the operations are listed at /v1/openapi.json."},
	{"method_not_allowed", http.StatusMethodNotAllowed, "The path exists, but not with this method; the Allow header lists the methods it takes."},
	{codeIdempotencyConflict, http.StatusConflict, "This Idempotency-Key made a task with another hypothesis, budget or retrieval; use a new key for a new task."},
	{codeTaskStopped, http.StatusConflict, "The task is stopped: it takes no new claims, targets or jobs."},
	{codeTaskNotPaused, http.StatusConflict, "The change is taken only while the task is paused (POST /v1/tasks/{task_id}/pause first)."},
	{"body_too_large", http.StatusRequestEntityTooLarge, "The request body is past the operation's bound (1 MiB; a citation check's text, its own); send less per call."},
	{"rate_limited", http.StatusTooManyRequests, "This token's request rate is used up; retry after the Retry-After seconds (RateLimit tells what is left)."},
	{codeTooManyStreams, http.StatusTooManyRequests, "This token holds as many event streams open as it may; close one first."},
	{codeTooManyInvalidTokens, http.StatusTooManyRequests, "Too many refused tokens from this address; retry after the Retry-After seconds."},
	{"client_closed_request", 499, "The client went away before the answer (logged, never seen by that client)."},
	{"internal", http.StatusInternalServerError, "The fleet failed; its log has the cause under the request's X-Request-Id."},
	{"unavailable", http.StatusServiceUnavailable, "The database (tokens, rates, the graph) cannot be reached; retry later."},
}

// codeByStatus is each status's code when the error says no other: the
// first of ProblemCodes with it.
var codeByStatus = func() map[int]string {
	m := map[int]string{}
	for _, c := range ProblemCodes {
		if _, ok := m[c.Status]; !ok {
			m[c.Status] = c.Code
		}
	}
	return m
}()

// problemType is where code is described.
func problemType(code string) string { return "/v1/problems/" + code }

// newProblem is the problem of status with code ("" for the status's own)
// and detail.
func newProblem(status int, code, detail string, errs ...error) *Problem {
	if status == http.StatusUnprocessableEntity {
		// A request the schema refuses is a 400 naming the field in its
		// errors' location (huma's own default is 422).
		status = http.StatusBadRequest
	}
	if code == "" {
		code = codeByStatus[status]
	}
	if code == "" {
		code = "http_" + strconv.Itoa(status) // never listed: a status no code was made for
	}
	p := &Problem{Type: problemType(code), Title: http.StatusText(status), Status: status, Code: code, Detail: detail}
	if status == 499 {
		p.Title = "Client Closed Request"
	}
	for _, err := range errs {
		switch d := err.(type) {
		case nil:
		case huma.ErrorDetailer:
			p.Errors = append(p.Errors, d.ErrorDetail())
		default:
			p.Errors = append(p.Errors, &huma.ErrorDetail{Message: err.Error()})
		}
	}
	return p
}

func init() {
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return newProblem(status, "", msg, errs...)
	}
}

// writeProblem answers a request outside huma with a problem.
func writeProblem(w http.ResponseWriter, p *Problem) {
	data, err := json.Marshal(p)
	if err != nil { // a Problem always marshals
		http.Error(w, p.Detail, p.Status)
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_, _ = w.Write(append(data, '\n'))
}

// writeHumaProblem answers from a /v1 middleware with a problem.
func writeHumaProblem(ctx huma.Context, p *Problem) {
	data, err := json.Marshal(p)
	if err != nil { // a Problem always marshals
		data = []byte(`{}`)
	}
	ctx.SetHeader("Content-Type", "application/problem+json")
	ctx.SetStatus(p.Status)
	_, _ = ctx.BodyWriter().Write(append(data, '\n'))
}

// registerProblemPages registers the public description of every problem code:
// GET /v1/problems and GET /v1/problems/{code}, which each Problem's Type
// names. They need no token.
func registerProblemPages(api huma.API) {
	public := []map[string][]string{}
	huma.Register(api, huma.Operation{OperationID: "list-problems", Method: http.MethodGet, Path: "/v1/problems", Security: public,
		Summary: "Every problem code the API answers with", Tags: []string{"problems"}},
		func(context.Context, *struct{}) (*body[ProblemCodeList], error) {
			return &body[ProblemCodeList]{ProblemCodeList{Items: ProblemCodes}}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "get-problem", Method: http.MethodGet, Path: "/v1/problems/{code}", Security: public,
		Summary: "One problem code: its status and what it means", Tags: []string{"problems"}, Errors: []int{http.StatusNotFound}},
		func(_ context.Context, in *struct {
			Code string `path:"code" maxLength:"64" doc:"A problem's code."`
		}) (*body[ProblemCode], error) {
			for _, c := range ProblemCodes {
				if c.Code == in.Code {
					return &body[ProblemCode]{c}, nil
				}
			}
			return nil, newProblem(http.StatusNotFound, "", "no problem code "+strconv.Quote(in.Code))
		})
}

// ProblemCodeList is GET /v1/problems.
type ProblemCodeList struct {
	Items []ProblemCode `json:"items" doc:"Every code, by status."`
}

// isPublic reports whether op needs no token (its security is set and
// empty).
func isPublic(op *huma.Operation) bool { return op.Security != nil && len(op.Security) == 0 }

// conflicts are the operations that can answer 409: a create whose
// Idempotency-Key made another task, and the changes a stopped task (or
// one not paused) refuses.
var conflicts = map[string]bool{"create-task": true, "add-claims": true, "add-targets": true, "pause-task": true,
	"resume-task": true, "set-task-budget": true, "retry-job": true}

// documentOnlyTheirErrors leaves in each operation's document only the
// error statuses it can answer: 400 with any parameter or body, 404 with a
// row's id in its path, 409 for conflicts, 413 with a body.
func documentOnlyTheirErrors(api huma.API) {
	for _, item := range api.OpenAPI().Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			drop := map[int]bool{
				http.StatusBadRequest:            len(op.Parameters) == 0 && op.RequestBody == nil,
				http.StatusNotFound:              !strings.Contains(op.Path, "_id}") && op.OperationID != "get-problem",
				http.StatusConflict:              !conflicts[op.OperationID],
				http.StatusRequestEntityTooLarge: op.RequestBody == nil,
			}
			for status, gone := range drop {
				if gone {
					delete(op.Responses, strconv.Itoa(status))
				}
			}
		}
	}
}
