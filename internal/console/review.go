package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// claimData is a claim's page: the claim, its origin quote inside the
// page version it was taken from, and its evidence side by side.
type claimData struct {
	View   service.ClaimView
	Origin *service.SpanContext // nil for a hypothesis
}

func (c *console) claimPage(w http.ResponseWriter, r *http.Request, p *person) {
	claimID, ok := c.pathID(w, r, p, "claim_id")
	if !ok {
		return
	}
	ctx := r.Context()
	v, err := c.opts.Service.ClaimView(ctx, p.Org(), claimID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	data := claimData{View: v}
	if v.Claim.Kind != "hypothesis" {
		origin, err := c.opts.Service.ClaimOrigin(ctx, p.Org(), claimID)
		if err != nil {
			c.fail(w, r, p, err)
			return
		}
		data.Origin = &origin
	}
	c.render(w, r, p, http.StatusOK, "claim", fmt.Sprintf("%s of task %d", v.Claim.EvidenceNo, v.TaskID), data)
}

// reason reads a form's reason: required, at most jobs.MaxTextRunes.
func reason(r *http.Request) (string, error) {
	why := strings.TrimSpace(r.PostFormValue("reason"))
	if why == "" {
		return "", fmt.Errorf("%w: reason: say why (it goes into the audit list)", errs.ErrBadInput)
	}
	if err := jobs.CheckText(why, jobs.MaxTextRunes); err != nil {
		return "", fmt.Errorf("%w: reason: %v", errs.ErrBadInput, err)
	}
	return why, nil
}

// claimFeedback rejects or restores a claim, with a reason.
func (c *console) claimFeedback(w http.ResponseWriter, r *http.Request, p *person) {
	claimID, ok := c.pathID(w, r, p, "claim_id")
	if !ok {
		return
	}
	why, err := reason(r)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	action := r.PostFormValue("action")
	if action != "reject" && action != "restore" {
		c.fail(w, r, p, fmt.Errorf("%w: action %q: want reject or restore", errs.ErrBadInput, action))
		return
	}
	if _, err := c.opts.Service.ClaimFeedback(r.Context(), p.Org(), service.ClaimVerdictFeedback{ClaimID: claimID,
		Reject: action == "reject", Reason: why, By: p.Actor(), TokenID: p.caller.TokenID}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, Path+"claims/"+itoa(claimID), http.StatusSeeOther)
}

// edgeData is an edge's page: its premise inside its page version.
type edgeData struct {
	Span      service.SpanContext
	Relations []string
}

func (c *console) edgePage(w http.ResponseWriter, r *http.Request, p *person) {
	edgeID, ok := c.pathID(w, r, p, "edge_id")
	if !ok {
		return
	}
	span, err := c.opts.Service.EdgeSource(r.Context(), p.Org(), edgeID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "edge", fmt.Sprintf("Evidence %d for %s", edgeID, span.EvidenceNo),
		edgeData{Span: span, Relations: []string{"supports", "refutes", "neutral"}})
}

// correctEdge sets an NLI edge's relation, with a reason.
func (c *console) correctEdge(w http.ResponseWriter, r *http.Request, p *person) {
	edgeID, ok := c.pathID(w, r, p, "edge_id")
	if !ok {
		return
	}
	why, err := reason(r)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	if _, err := c.opts.Service.CorrectEdge(r.Context(), p.Org(), service.EdgeCorrection{EdgeID: edgeID,
		Relation: r.PostFormValue("relation"), Reason: why, By: p.Actor(), TokenID: p.caller.TokenID}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, Path+"edges/"+itoa(edgeID), http.StatusSeeOther)
}

// sourcesData is the source review page.
type sourcesData struct {
	Review   service.SourceReview
	Levels   []string // the levels a reviewer may set
	Order    []string // every level, in the page's order
	Selected string   // the domain the change form starts with
}

// domainsPerPage bounds the source review's domain list.
const domainsPerPage = 500

func (c *console) sourcesPage(w http.ResponseWriter, r *http.Request, p *person) {
	review, err := c.opts.Service.SourceReview(r.Context(), p.Org(), domainsPerPage)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "sources", "Sources", sourcesData{Review: review,
		Levels:   []string{"PRIMARY", "GOVERNMENT", "ACADEMIC", "TRUSTED", "LOW", "UNVERIFIED"},
		Order:    []string{"BLOCKED", "PRIMARY", "GOVERNMENT", "ACADEMIC", "TRUSTED", "LOW", "UNVERIFIED"},
		Selected: r.URL.Query().Get("domain")})
}

// changeSource sets, blocks, unblocks or clears the organization's view of
// a domain, with a reason.
func (c *console) changeSource(w http.ResponseWriter, r *http.Request, p *person) {
	why, err := reason(r)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	domain := r.PostFormValue("domain")
	if _, err := c.opts.Service.ChangeDomainView(r.Context(), p.Org(), domain, service.DomainViewChange{
		Action: r.PostFormValue("action"), Level: r.PostFormValue("level"), Reason: why, By: p.Actor(), TokenID: p.caller.TokenID}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, Path+"sources?domain="+url.QueryEscape(domain), http.StatusSeeOther)
}

// auditData is the audit list.
type auditData struct {
	Audit service.AuditPage
}

func (c *console) auditPage(w http.ResponseWriter, r *http.Request, p *person) {
	audit, err := c.opts.Service.Audit(r.Context(), p.Org(), 100, r.URL.Query().Get("cursor"))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "audit", "Audit", auditData{Audit: audit})
}
