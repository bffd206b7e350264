package planner_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/planner"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

const splitHypothesis = "Glacier retreat in the Alps has accelerated since 1980, and the Rhône Glacier lost a large part of its volume."

// beliefs reads a claim's own and propagated log-odds and beliefs.
func (b *bundle) beliefs(t *testing.T, task int64, no int) (own, ownBelief, prop, propBelief float64) {
	t.Helper()
	if err := b.f.Pool.QueryRow(context.Background(), `SELECT belief_log_odds, belief, propagated_log_odds, propagated_belief
		FROM claims WHERE task_id = $1 AND evidence_no = $2`, task, no).Scan(&own, &ownBelief, &prop, &propBelief); err != nil {
		t.Fatal(err)
	}
	return own, ownBelief, prop, propBelief
}

// TestHypothesisSplitIsProposedThenAccepted: with an LLM, a self-directed
// task's hypothesis E1 is split at stage 0 (the recorded answer cuts it at
// ", and"): the sub-claims become claims E2 and E3 that stage 1's target
// selection weighs, each with a proposed link E1 depends_on it made by the
// model, recorded in a hypothesis_split event; the request carried the
// hypothesis. Proposals do not propagate: E1's propagated belief is its
// own. Accepting E1 → E2 adds E2's log-odds to E1's in that call;
// rejecting E1 → E3 deletes it and changes nothing.
func TestHypothesisSplitIsProposedThenAccepted(t *testing.T) {
	t.Parallel()
	servers := testfleet.StartModelServers(t)
	pages := corpusPages()
	search := searchServer(t, pages)
	f := testfleet.Start(t, testfleet.Options{Pages: pages, Adjust: func(c *config.Config) {
		c.SearchURL = search.URL
		c.TaskSettle = 100 * time.Millisecond
		c.LLM.Backend, c.LLM.URL, c.LLM.ModelName = "openai", servers.OpenAI.URL+"/v1", "test-llm"
	}})
	b := &bundle{f: f, svc: service.New(f.Store, f.Client)}
	task := b.run(t, "standard", splitHypothesis)
	ctx := context.Background()
	const model = "openai:test-llm+split_hypothesis.v1"
	wantSubs := testfleet.SplitAnswer(splitHypothesis)
	if want := []string{"Glacier retreat in the Alps has accelerated since 1980.", "The Rhône Glacier lost a large part of its volume."}; !slices.Equal(wantSubs, want) {
		t.Fatalf("the recorded answer %q, want %q", wantSubs, want)
	}

	var asked int
	for _, body := range servers.Requests("openai", "/v1/chat/completions") {
		if strings.Contains(string(body), `"name":"split_hypothesis"`) {
			asked++
			if !strings.Contains(string(body), "BEGIN HYPOTHESIS\\n"+splitHypothesis+"\\nEND HYPOTHESIS") {
				t.Errorf("the split request lacks the hypothesis: %s", body)
			}
		}
	}
	if asked != 1 {
		t.Errorf("%d split requests, want 1", asked)
	}
	if n := b.count(t, `SELECT count(*) FROM task_costs WHERE task_id = $1 AND stage = 'hypothesis_split' AND model_calls = 1 AND tokens_in > 0`, task); n != 1 {
		t.Errorf("the split's cost is not recorded as one model call with its tokens")
	}

	var split, selection map[string]any
	for _, e := range b.events(t, task) {
		switch e.kind {
		case planner.EventHypothesisSplit:
			if split != nil {
				t.Errorf("a second hypothesis_split event: %v", e.payload)
			}
			split = e.payload
		case planner.EventTargetSelection:
			selection = e.payload
		}
	}
	if split == nil || split["model"] != model {
		t.Fatalf("hypothesis_split event %v, want one naming %s", split, model)
	}
	subs, _ := json.Marshal(split["sub_claims"])
	if want := `[{"claim":"E2","new":true,"text":"` + wantSubs[0] + `"},{"claim":"E3","new":true,"text":"` + wantSubs[1] + `"}]`; string(subs) != want {
		t.Errorf("sub_claims %s, want %s", subs, want)
	}
	links, _ := json.Marshal(split["links"])
	if want := `[{"from":"E1","proposed":true,"to":"E2"},{"from":"E1","proposed":true,"to":"E3"}]`; string(links) != want {
		t.Errorf("links %s, want %s", links, want)
	}
	var weighed []string
	for _, c := range selection["claims"].([]any) {
		weighed = append(weighed, c.(map[string]any)["claim"].(string))
	}
	if !slices.Equal(weighed, []string{"E1", "E2", "E3"}) {
		t.Errorf("target selection weighed %v, want E1, E2, E3", weighed)
	}

	ls, err := b.svc.ClaimLinks(ctx, "acme", task)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 {
		t.Fatalf("links %+v, want two", ls)
	}
	for i, l := range ls {
		if l.From != "E1" || l.To != []string{"E2", "E3"}[i] || l.Relation != "depends_on" || l.Weight != planner.SplitWeight ||
			l.Status != "proposed" || l.CreatedBy != "llm:"+model || !strings.Contains(l.Reason, model) {
			t.Errorf("link %+v, want a proposal E1 depends_on E%d by the model", l, i+2)
		}
	}
	own, ownBelief, prop, propBelief := b.beliefs(t, task, 1)
	if prop != own || propBelief != ownBelief {
		t.Errorf("E1 before acceptance: own %v (%v), propagated %v (%v); want equal", own, ownBelief, prop, propBelief)
	}
	e2, _, _, _ := b.beliefs(t, task, 2)
	if e2 == 0 {
		t.Fatalf("E2's log-odds is 0: accepting its link could not show")
	}

	l, err := b.svc.AcceptClaimLink(ctx, "acme", task, "E1", "E2", "tester")
	if err != nil || l.Status != "accepted" {
		t.Fatalf("accept: %+v, %v", l, err)
	}
	own2, _, prop2, propBelief2 := b.beliefs(t, task, 1)
	if math.Abs(prop2-(own2+e2)) > 1e-9 || prop2 == own2 || math.Abs(propBelief2-1/(1+math.Exp(-prop2))) > 1e-9 {
		t.Errorf("E1 after acceptance: own %v, propagated %v (%v); want own + E2's %v", own2, prop2, propBelief2, e2)
	}
	if err := b.svc.RejectClaimLink(ctx, "acme", task, "E1", "E3", "tester"); err != nil {
		t.Fatal(err)
	}
	if _, _, prop3, _ := b.beliefs(t, task, 1); prop3 != prop2 {
		t.Errorf("E1 propagated %v after the rejection, want %v unchanged", prop3, prop2)
	}
	if ls, err := b.svc.ClaimLinks(ctx, "acme", task); err != nil || len(ls) != 1 || ls[0].To != "E2" {
		t.Errorf("links after review %+v, %v; want E1 → E2 only", ls, err)
	}
}
