package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// registerRetrieval registers the task's recorded retrieval decisions.
func (h *handlers) registerRetrieval(api huma.API, op func(id, method, path, summary string, tags ...string) huma.Operation) {
	huma.Register(api, op("list-retrieval-events", http.MethodGet, "/v1/tasks/{task_id}/retrieval",
		"The decisions of the task's self-directed retrieval, in order, with their numbers (target_selection, urls_registered, fetches_released, escalation, budget_exhausted, retrieval_done)", "tasks"), h.retrievalEvents)
}

type retrievalInput struct {
	TaskPath
	PageQuery
}

func (h *handlers) retrievalEvents(ctx context.Context, in *retrievalInput) (*body[service.TaskEventPage], error) {
	p, err := h.svc.TaskEvents(ctx, org(ctx), in.TaskID, in.Limit, in.Cursor)
	return &body[service.TaskEventPage]{p}, h.problem(ctx, err)
}
