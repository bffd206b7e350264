package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// registerLinks registers the claim dependencies of a task (ARCHITECTURE.md
// §5.8): link two claims, list the links.
func (h *handlers) registerLinks(api huma.API, op func(id, method, path, summary string, tags ...string) huma.Operation) {
	huma.Register(api, op("link-claims", http.MethodPost, "/v1/tasks/{task_id}/links",
		"Link two claims of a task: from depends on (or contradicts) to, whose belief flows into from's propagated belief; a cycle is 400", "tasks"), h.linkClaims)
	huma.Register(api, op("list-claim-links", http.MethodGet, "/v1/tasks/{task_id}/links", "A task's claim links, in E-number order", "tasks"), h.listClaimLinks)
}

type linkClaimsInput struct {
	TaskPath
	Body struct {
		From     string   `json:"from" maxLength:"20" doc:"E-number of the dependent claim, \"E3\"."`
		To       string   `json:"to" maxLength:"20" doc:"E-number of the claim it depends on (the parent), \"E1\"."`
		Relation string   `json:"relation" enum:"depends_on,contradicts"`
		Weight   *float64 `json:"weight,omitempty" minimum:"0" maximum:"1" doc:"How much of the parent's log-odds flows in; default 1."`
		Reason   string   `json:"reason,omitempty" maxLength:"2000"`
		Reviewer string   `json:"reviewer,omitempty" maxLength:"200" doc:"Who links them, recorded beside the token's id."`
	}
}

func (h *handlers) linkClaims(ctx context.Context, in *linkClaimsInput) (*body[service.ClaimLink], error) {
	w := 1.0
	if in.Body.Weight != nil {
		w = *in.Body.Weight
	}
	res, err := h.svc.LinkClaims(ctx, org(ctx), in.TaskID, in.Body.From, in.Body.To, in.Body.Relation, w,
		reviewer(ctx, in.Body.Reviewer), in.Body.Reason)
	return &body[service.ClaimLink]{res}, h.problem(ctx, err)
}

type claimLinksOutput struct {
	Links []service.ClaimLink `json:"items"`
}

func (h *handlers) listClaimLinks(ctx context.Context, in *TaskPath) (*body[claimLinksOutput], error) {
	res, err := h.svc.ClaimLinks(ctx, org(ctx), in.TaskID)
	return &body[claimLinksOutput]{claimLinksOutput{Links: res}}, h.problem(ctx, err)
}
