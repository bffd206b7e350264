package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// registerProposals registers the review of the claim links the LLM
// proposed when it split a task's hypothesis (ARCHITECTURE.md §5.8):
// accept one (it propagates from then on), reject one (it is deleted).
func (h *handlers) registerProposals(api huma.API, op func(id, method, path, summary string, tags ...string) huma.Operation) {
	huma.Register(api, op("accept-claim-link", http.MethodPost, "/v1/tasks/{task_id}/links/accept",
		"Accept a proposed claim link: it propagates from now on, recomputed in the same transaction; a link that is no proposal is 400", "tasks"), h.acceptClaimLink)
	huma.Register(api, op("reject-claim-link", http.MethodPost, "/v1/tasks/{task_id}/links/reject",
		"Reject a proposed claim link: it is deleted (it never propagated); a link that is no proposal is 400", "tasks"), h.rejectClaimLink)
}

type reviewLinkInput struct {
	TaskPath
	Body struct {
		From     string `json:"from" maxLength:"20" doc:"E-number of the proposal's dependent claim, \"E1\"."`
		To       string `json:"to" maxLength:"20" doc:"E-number of the claim it depends on, \"E3\"."`
		Reviewer string `json:"reviewer,omitempty" maxLength:"200" doc:"Who reviews it, recorded beside the token's id."`
	}
}

func (h *handlers) acceptClaimLink(ctx context.Context, in *reviewLinkInput) (*body[service.ClaimLink], error) {
	res, err := h.svc.AcceptClaimLink(ctx, org(ctx), in.TaskID, in.Body.From, in.Body.To, reviewer(ctx, in.Body.Reviewer))
	return &body[service.ClaimLink]{res}, h.problem(ctx, err)
}

type rejectedLink struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Rejected bool   `json:"rejected" doc:"always true: the proposal is deleted"`
}

func (h *handlers) rejectClaimLink(ctx context.Context, in *reviewLinkInput) (*body[rejectedLink], error) {
	err := h.svc.RejectClaimLink(ctx, org(ctx), in.TaskID, in.Body.From, in.Body.To, reviewer(ctx, in.Body.Reviewer))
	return &body[rejectedLink]{rejectedLink{From: in.Body.From, To: in.Body.To, Rejected: err == nil}}, h.problem(ctx, err)
}
