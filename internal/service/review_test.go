package service_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

func TestSourceReview(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	t.Run("domains by level with their counts, blocks with the organization's causes", func(t *testing.T) {
		t.Parallel()
		r, err := b.svc.SourceReview(ctx, "alpha", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []service.DomainCount{
			{Domain: "c.example.org", Level: "BLOCKED", FleetLevel: "BLOCKED", Pages: 1, Claims: 1},
			{Domain: "a.example.org", Level: "ACADEMIC", FleetLevel: "ACADEMIC", Pages: 1, Claims: 1},
			{Domain: "b.example.org", Level: "LOW", OwnLevel: "LOW", FleetLevel: "UNVERIFIED", Pages: 1, Claims: 1, RejectedClaims: 1},
		}
		if !slices.Equal(r.Domains, want) {
			t.Errorf("domains %+v, want %+v", r.Domains, want)
		}
		if want := map[string]int{"BLOCKED": 1, "ACADEMIC": 1, "LOW": 1}; !maps.Equal(r.ByLevel, want) {
			t.Errorf("by level %v, want %v", r.ByLevel, want)
		}
		if len(r.Blocked) != 2 || r.Blocked[0].Domain != "c.example.org" || r.Blocked[1].Domain != "d.example.org" {
			t.Fatalf("blocked %+v, want c.example.org (a page) and d.example.org (a failed target)", r.Blocked)
		}
		c := r.Blocked[0]
		if !slices.Equal(c.CauseClaimIds, []int64{b.claims["E4"]}) || !slices.Equal(c.CauseEdgeIds, []int64{b.edges["C→E2"]}) ||
			c.SetBy != "source verification" || c.BlockReason != "high_rejection_rate" || c.Scope != "fleet" || c.Restore.Risk == "" {
			t.Errorf("c.example.org's block %+v, want alpha's claim %d and edge %d only, with its actor and restore risk", c, b.claims["E4"], b.edges["C→E2"])
		}
	})
	t.Run("at most limit domains, every domain counted", func(t *testing.T) {
		t.Parallel()
		r, err := b.svc.SourceReview(ctx, "alpha", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Domains) != 1 || r.Domains[0].Domain != "c.example.org" || len(r.ByLevel) != 3 {
			t.Errorf("limit 1: %+v by level %v", r.Domains, r.ByLevel)
		}
	})
	t.Run("another organization sees its own domains and causes", func(t *testing.T) {
		t.Parallel()
		r, err := b.svc.SourceReview(ctx, "beta", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Domains) != 1 || r.Domains[0].Domain != "c.example.org" || r.Domains[0].Claims != 1 || !maps.Equal(r.ByLevel, map[string]int{"BLOCKED": 1}) {
			t.Errorf("beta's domains %+v (%v), want c.example.org with its one claim", r.Domains, r.ByLevel)
		}
		if len(r.Blocked) != 1 || !slices.Equal(r.Blocked[0].CauseClaimIds, []int64{b.betaClaim}) || !slices.Equal(r.Blocked[0].CauseEdgeIds, []int64{b.betaEdge}) {
			t.Errorf("beta's blocks %+v, want c.example.org with beta's claim %d and edge %d only", r.Blocked, b.betaClaim, b.betaEdge)
		}
		none, err := b.svc.SourceReview(ctx, "gamma", 0)
		if err != nil || len(none.Domains) != 0 || len(none.Blocked) != 0 || len(none.ByLevel) != 0 {
			t.Errorf("an organization with no tasks: %+v, %v", none, err)
		}
	})
	t.Run("bad limits", func(t *testing.T) {
		t.Parallel()
		for _, limit := range []int{-1, service.MaxReviewLimit + 1} {
			if _, err := b.svc.SourceReview(ctx, "alpha", limit); !errors.Is(err, errs.ErrBadInput) || !strings.Contains(err.Error(), "limit") {
				t.Errorf("limit %d: %v, want bad input naming limit", limit, err)
			}
		}
	})
}

func TestAudit(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	// alpha blocks b.example.org in its view, an operator sets a.example.org
	// fleet-wide, beta and alpha each reject a claim, alpha corrects an edge
	if _, err := b.svc.ChangeDomainView(ctx, "alpha", "b.example.org", service.DomainViewChange{Action: "block", Reason: "spam", By: "rev-a", TokenID: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewStore(b.pool).ChangeDomainLevel(ctx, store.DomainLevelEdit{Domain: "a.example.org", Level: "TRUSTED", Reason: "fleet", By: "operator"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.ClaimFeedback(ctx, "beta", service.ClaimVerdictFeedback{ClaimID: b.betaClaim, Reject: true, Reason: "beta's", By: "rev-b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.ClaimFeedback(ctx, "alpha", service.ClaimVerdictFeedback{ClaimID: b.claims["E2"], Reject: true, Reason: "wrong", By: "rev-a", TokenID: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.CorrectEdge(ctx, "alpha", service.EdgeCorrection{EdgeID: b.edges["B→E2"], Relation: "neutral", Reason: "off topic", By: "rev-a"}); err != nil {
		t.Fatal(err)
	}
	walk := func(t *testing.T, org string, limit int) []service.AuditEntry {
		t.Helper()
		var all []service.AuditEntry
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 50 {
				t.Fatal("the cursor does not end")
			}
			page, err := b.svc.Audit(ctx, org, limit, cursor)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) > limit {
				t.Fatalf("%d entries in a page of %d", len(page.Items), limit)
			}
			all = append(all, page.Items...)
			if page.Next == "" {
				return all
			}
			cursor = page.Next
		}
	}

	t.Run("the organization's changes, newest first", func(t *testing.T) {
		t.Parallel()
		all := walk(t, "alpha", 100)
		for i := 1; i < len(all); i++ {
			if all[i].At.After(all[i-1].At) {
				t.Errorf("entry %s at %s after %s at %s", all[i].ID, all[i].At, all[i-1].ID, all[i-1].At)
			}
		}
		var ours []service.AuditEntry
		for _, e := range all {
			if e.Reason == "beta's" || e.Reason == "fleet" || e.Domain == "a.example.org" && e.Kind == "domain" {
				t.Errorf("alpha's audit lists %+v", e)
			}
			if e.By == "rev-a" {
				ours = append(ours, e)
			}
		}
		if len(ours) != 3 {
			t.Fatalf("alpha's reviewer's entries %+v, want 3", ours)
		}
		edge, claim, domain := ours[0], ours[1], ours[2]
		if edge.Kind != "edge" || edge.Action != "correct" || edge.EdgeID != b.edges["B→E2"] || edge.ClaimID != b.claims["E2"] || edge.EvidenceNo != "E2" ||
			edge.TaskID != b.task || edge.Old != "refutes" || edge.New != "neutral" || edge.Domain != "b.example.org" || edge.TokenID != nil ||
			!strings.HasPrefix(edge.ID, "edge:") {
			t.Errorf("the correction %+v", edge)
		}
		if claim.Kind != "claim" || claim.Action != "reject" || claim.ClaimID != b.claims["E2"] || claim.EvidenceNo != "E2" || claim.TaskID != b.task ||
			claim.Reason != "wrong" || claim.Domain != "a.example.org" || claim.TokenID == nil || *claim.TokenID != 7 || !strings.HasPrefix(claim.ID, "claim:") {
			t.Errorf("the rejection %+v", claim)
		}
		if domain.Kind != "domain" || domain.Action != "block" || domain.Domain != "b.example.org" || domain.Old != "LOW" || domain.New != "BLOCKED" ||
			domain.Reason != "spam" || domain.TokenID == nil || *domain.TokenID != 3 || !strings.HasPrefix(domain.ID, "domain:") {
			t.Errorf("the block %+v", domain)
		}
	})
	t.Run("one at a time, the same entries", func(t *testing.T) {
		t.Parallel()
		all, one := walk(t, "alpha", 100), walk(t, "alpha", 1)
		if !slices.EqualFunc(all, one, func(a, b service.AuditEntry) bool { return a.ID == b.ID && a.At.Equal(b.At) }) {
			t.Errorf("walked one at a time: %v, at once: %v", one, all)
		}
	})
	t.Run("another organization's audit is its own", func(t *testing.T) {
		t.Parallel()
		all := walk(t, "beta", 10)
		if len(all) != 1 || all[0].Kind != "claim" || all[0].ClaimID != b.betaClaim || all[0].By != "rev-b" {
			t.Errorf("beta's audit %+v, want its one rejection", all)
		}
	})
	t.Run("bad cursors and limits", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			limit         int
			cursor, field string
		}{{0, "x", "cursor"}, {0, "1.3.1", "cursor"}, {0, "1.0.0", "cursor"}, {0, "1.0", "cursor"}, {-1, "", "limit"}, {service.MaxAuditLimit + 1, "", "limit"}} {
			if _, err := b.svc.Audit(ctx, "alpha", c.limit, c.cursor); !errors.Is(err, errs.ErrBadInput) || !strings.Contains(err.Error(), c.field) {
				t.Errorf("Audit(%d, %q) = %v, want bad input naming %s", c.limit, c.cursor, err, c.field)
			}
		}
	})
}
