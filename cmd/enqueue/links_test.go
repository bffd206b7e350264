package main

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestClaimLink: on a judged task, `claim link` makes E2 depend on E1 (weight 0.5) and E3
// contradict E2; a link closing a cycle and an unknown relation exit 2
// naming the problem; `claim links` lists both; the graph's claims carry
// propagated beliefs that follow the links.
func TestClaimLink(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, _ := b.runTask(t) // judged: the claims have beliefs of their own
	task := fmt.Sprint(id)

	var l struct {
		From, To, Relation, Status string
		Weight                     float64
	}
	b.mustRunJSON(t, &l, "claim", "link", "--task", task, "--from", "E2", "--to", "E1", "--relation", "depends_on", "--weight", "0.5", "--by", "tester")
	if l.From != "E2" || l.To != "E1" || l.Relation != "depends_on" || l.Weight != 0.5 || l.Status != "accepted" {
		t.Errorf("claim link = %+v", l)
	}
	if out := b.mustRun(t, "claim", "link", "--task", task, "--from", "e3", "--to", "2", "--relation", "contradicts"); !strings.HasPrefix(out, "E3\tcontradicts\tE2\tweight 1.00") {
		t.Errorf("claim link printed %q", out)
	}
	r := b.run(t, "claim", "link", "--task", task, "--from", "E1", "--to", "E3", "--relation", "depends_on")
	if r.code() != 2 || !strings.Contains(r.err.Error(), "cycle E1 → E3 → E2 → E1") {
		t.Errorf("a cycle: exit %d: %v, want 2 naming it", r.code(), r.err)
	}
	if r := b.run(t, "claim", "link", "--task", task, "--from", "E1", "--to", "E2", "--relation", "implies"); r.code() != 2 {
		t.Errorf("relation implies: exit %d: %v, want 2", r.code(), r.err)
	}
	if out := b.mustRun(t, "claim", "links", "--task", task); strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, "E2\tdepends_on\tE1\tweight 0.50\taccepted\ttester") {
		t.Errorf("claim links printed %q", out)
	}
	var g struct {
		Claims []struct {
			EvidenceNo        string  `json:"evidence_no"`
			BeliefLogOdds     float64 `json:"belief_log_odds"`
			Belief            float64 `json:"belief"`
			PropagatedLogOdds float64 `json:"propagated_log_odds"`
		} `json:"claims"`
		Links []struct{ From, To string } `json:"claim_links"`
	}
	b.mustRunJSON(t, &g, "graph", "--task", task)
	if len(g.Claims) < 3 || len(g.Links) != 2 {
		t.Fatalf("graph: %d claims, %d links", len(g.Claims), len(g.Links))
	}
	e1, e2, e3 := g.Claims[0], g.Claims[1], g.Claims[2]
	if e1.BeliefLogOdds == 0 {
		t.Fatalf("E1 has no belief of its own after the run: %+v", e1)
	}
	if math.Abs(e1.PropagatedLogOdds-e1.BeliefLogOdds) > 1e-9 ||
		math.Abs(e2.PropagatedLogOdds-(e2.BeliefLogOdds+0.5*e1.PropagatedLogOdds)) > 1e-9 ||
		math.Abs(e3.PropagatedLogOdds-(e3.BeliefLogOdds-e2.PropagatedLogOdds)) > 1e-9 {
		t.Errorf("propagated log-odds do not follow the links: %+v", g.Claims)
	}
	if out := b.mustRun(t, "report", "--task", task); !regexp.MustCompile(`belief 0\.\d{3} \(a probability, from log-odds [+-]\d+\.\d{3}; after claim links 0\.\d{3}\)`).MatchString(out) {
		t.Errorf("report shows no belief with its log-odds:\n%s", out)
	}
}
