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
