package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// registerLifecycle registers pausing and resuming a task and changing a
// paused task's budget class (service.PauseTask, ResumeTask, SetBudget).
func (h *handlers) registerLifecycle(api huma.API, op func(id, method, path, summary string, tags ...string) huma.Operation) {
	pause := op("pause-task", http.MethodPost, "/v1/tasks/{task_id}/pause", "Pause a task: no job of it starts until it is resumed", "tasks")
	pause.Description = "Running jobs finish; waiting ones wait without using attempts; new work (claims, targets) is recorded and waits. " +
		"A paused task is never completed. Pausing a paused task changes nothing (changed: false); a stopped task is 409."
	huma.Register(api, pause, h.pauseTask)
	resume := op("resume-task", http.MethodPost, "/v1/tasks/{task_id}/resume", "Resume a paused task", "tasks")
	resume.Description = "Its jobs start again within EVF_PAUSED_SNOOZE and continue where they were (no judged pair is judged again); " +
		"it is completed when no work remains. Resuming a task that is not paused changes nothing (changed: false); a stopped task is 409."
	huma.Register(api, resume, h.resumeTask)
	budget := op("set-task-budget", http.MethodPatch, "/v1/tasks/{task_id}/budget", "Change a paused task's budget class", "tasks")
	budget.Description = "Only while the task is paused (409 otherwise): pause it, change the budget, resume it."
	huma.Register(api, budget, h.setBudget)
	recheck := op("recheck-task", http.MethodPost, "/v1/tasks/{task_id}/recheck", "Recheck the pages a task cites, now or on a schedule", "tasks")
	recheck.Description = "Each page the task's evidence cites is fetched again (politely, within the fleet's daily recheck budget) and every cited span " +
		"classified: unchanged, edited, moved, gone or unreachable; a page that changed is kept as a new version and nothing cited is replaced. " +
		"The export's items carry each quote's latest check, the status and event stream sum them up (source_changed). Without a body a round starts now; " +
		"with `every` the task's schedule is set (a duration of at least 1h, `never`, or `default` for EVF_RECHECK_INTERVAL) and a round starts only with `now`. " +
		"A stopped task is 400."
	huma.Register(api, recheck, h.recheckTask)
}

type recheckInput struct {
	TaskPath
	Body *struct {
		Every string `json:"every,omitempty" maxLength:"32" doc:"The task's interval between rounds: a Go duration of at least 1h (72h), never, or default (the fleet's EVF_RECHECK_INTERVAL)."`
		Now   bool   `json:"now,omitempty" doc:"With every: start a round now too (without every a round always starts)."`
	} `required:"false"`
}

func (h *handlers) recheckTask(ctx context.Context, in *recheckInput) (*body[service.RecheckStarted], error) {
	var asked string
	var now bool
	if b := in.Body; b != nil {
		asked, now = b.Every, b.Now
	}
	every, start, err := service.RecheckWanted(asked, now)
	if err != nil {
		return nil, h.problem(ctx, err)
	}
	res, err := h.svc.RecheckTask(ctx, org(ctx), in.TaskID, every, start)
	return &body[service.RecheckStarted]{res}, h.problem(ctx, err)
}

func (h *handlers) pauseTask(ctx context.Context, in *TaskPath) (*body[service.Lifecycle], error) {
	res, err := h.svc.PauseTask(ctx, org(ctx), in.TaskID)
	return &body[service.Lifecycle]{res}, h.problem(ctx, err)
}

func (h *handlers) resumeTask(ctx context.Context, in *TaskPath) (*body[service.Lifecycle], error) {
	res, err := h.svc.ResumeTask(ctx, org(ctx), in.TaskID)
	return &body[service.Lifecycle]{res}, h.problem(ctx, err)
}

type budgetInput struct {
	TaskPath
	Body struct {
		Budget string `json:"budget" enum:"minimal,standard,deep" doc:"The new budget class."`
	}
}

func (h *handlers) setBudget(ctx context.Context, in *budgetInput) (*body[service.Lifecycle], error) {
	res, err := h.svc.SetBudget(ctx, org(ctx), in.TaskID, in.Body.Budget)
	return &body[service.Lifecycle]{res}, h.problem(ctx, err)
}
