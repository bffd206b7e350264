package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// registerDomains adds the organization's view of domain trust
// (ARCHITECTURE.md §5.5): read it, and change it — its tasks see a change
// at once; the fleet's level of record is an operator's, or a quorum of
// organizations'.
func (h *handlers) registerDomains(api huma.API, op func(id, method, path, summary string, tags ...string) huma.Operation) {
	huma.Register(api, op("get-domain-view", http.MethodGet, "/v1/domains/{domain}",
		"A domain as your organization sees it: the level your tasks see and stamp, the fleet's level of record, a block or flag", "domains"), h.domainView)
	huma.Register(api, op("change-domain-view", http.MethodPost, "/v1/domains/{domain}/view",
		"Set, block, unblock or clear a domain in your organization's view only (the fleet's level moves by an operator or a quorum of organizations)", "domains"), h.changeDomainView)
}

type domainPath struct {
	Domain string `path:"domain" maxLength:"253" doc:"A host name, e.g. news.example.com."`
}

func (h *handlers) domainView(ctx context.Context, in *domainPath) (*body[service.DomainView], error) {
	res, err := h.svc.DomainView(ctx, org(ctx), in.Domain)
	return &body[service.DomainView]{res}, h.problem(ctx, err)
}

type domainViewInput struct {
	Domain string `path:"domain" maxLength:"253"`
	Body   struct {
		Action   string `json:"action" enum:"set,block,unblock,clear" doc:"set: give the domain Level in your view; block / unblock: your view's own block; clear: follow the fleet's level again."`
		Level    string `json:"level,omitempty" enum:"PRIMARY,GOVERNMENT,ACADEMIC,TRUSTED,LOW,UNVERIFIED" doc:"With action set."`
		Reason   string `json:"reason" minLength:"1" maxLength:"2000"`
		Reviewer string `json:"reviewer,omitempty" maxLength:"200" doc:"Who the reviewer is, recorded beside the token's id."`
	}
}

func (h *handlers) changeDomainView(ctx context.Context, in *domainViewInput) (*body[service.DomainLevelChanged], error) {
	res, err := h.svc.ChangeDomainView(ctx, org(ctx), in.Domain, service.DomainViewChange{Action: in.Body.Action, Level: in.Body.Level,
		Reason: in.Body.Reason, By: reviewer(ctx, in.Body.Reviewer), TokenID: callerOf(ctx).TokenID})
	return &body[service.DomainLevelChanged]{res}, h.problem(ctx, err)
}
