package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/store"
)

// TestClaimLinkAcceptReject: on a judged task with the proposals E2 → E1
// and E3 → E1 (as the LLM's split makes them), `claim links` shows them
// proposed and E2's propagated belief is its own; `claim link accept`
// makes E2 → E1 accepted and E2's propagated log-odds its own plus E1's;
// `claim link reject` deletes E3 → E1; a second review exits 2 naming why.
func TestClaimLinkAcceptReject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, _ := b.runTask(t)
	task := fmt.Sprint(id)
	if _, err := store.New(b.f.Pool).ProposeClaimLinks(context.Background(), id, []store.NewClaimLink{
		{TaskID: id, From: 2, To: 1, Relation: "depends_on", Weight: 1, By: "llm:test", Reason: "split"},
		{TaskID: id, From: 3, To: 1, Relation: "depends_on", Weight: 1, By: "llm:test", Reason: "split"},
	}); err != nil {
		t.Fatal(err)
	}
	if out := b.mustRun(t, "claim", "links", "--task", task); out != "E2\tdepends_on\tE1\tweight 1.00\tproposed\tllm:test\tsplit\n"+
		"E3\tdepends_on\tE1\tweight 1.00\tproposed\tllm:test\tsplit\n" {
		t.Errorf("claim links printed %q", out)
	}
	type claim struct {
		BeliefLogOdds     float64 `json:"belief_log_odds"`
		PropagatedLogOdds float64 `json:"propagated_log_odds"`
	}
	graph := func() []claim {
		var g struct {
			Claims []claim `json:"claims"`
		}
		b.mustRunJSON(t, &g, "graph", "--task", task)
		if len(g.Claims) < 3 {
			t.Fatalf("graph: %d claims", len(g.Claims))
		}
		return g.Claims
	}
	if g := graph(); g[1].PropagatedLogOdds != g[1].BeliefLogOdds || g[0].BeliefLogOdds == 0 {
		t.Fatalf("before acceptance: E1 %+v, E2 %+v; want E1 with a belief, E2's propagated its own", g[0], g[1])
	}
	var l struct {
		From, To, Status string
		CreatedBy        string `json:"created_by"`
	}
	b.mustRunJSON(t, &l, "claim", "link", "accept", "--task", task, "--from", "E2", "--to", "E1", "--by", "tester")
	if l.From != "E2" || l.To != "E1" || l.Status != "accepted" || l.CreatedBy != "llm:test" {
		t.Errorf("claim link accept = %+v", l)
	}
	if g := graph(); math.Abs(g[1].PropagatedLogOdds-(g[1].BeliefLogOdds+g[0].PropagatedLogOdds)) > 1e-9 {
		t.Errorf("after acceptance: E1 %+v, E2 %+v; want E2's propagated its own plus E1's", g[0], g[1])
	}
	if out := b.mustRun(t, "claim", "link", "reject", "--task", task, "--from", "E3", "--to", "E1"); out != "rejected the proposal E3 → E1\n" {
		t.Errorf("claim link reject printed %q", out)
	}
	for _, op := range []string{"accept", "reject"} {
		r := b.run(t, "claim", "link", op, "--task", task, "--from", "E2", "--to", "E1")
		if r.code() != 2 || !strings.Contains(r.err.Error(), "no proposed claim link") {
			t.Errorf("claim link %s of an accepted link: exit %d: %v, want 2", op, r.code(), r.err)
		}
	}
	if r := b.run(t, "claim", "link", "accept", "--task", task, "--from", "E2"); r.code() != 2 {
		t.Errorf("without --to: exit %d: %v, want 2", r.code(), r.err)
	}
	if out := b.mustRun(t, "claim", "links", "--task", task); out != "E2\tdepends_on\tE1\tweight 1.00\taccepted\tllm:test\tsplit\n" {
		t.Errorf("claim links after review printed %q", out)
	}
}
