package planner

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/store"
)

// SplitWeight is the weight of a proposed link "E1 depends_on a
// sub-claim": 1, each sub-claim being a premise the hypothesis needs, its
// log-odds counts in full — the default of a person's link (enqueue claim
// link --weight). A person changes it by linking the pair again.
const SplitWeight = 1.0

// recordSplit writes the LLM's sub-claims of the task's hypothesis (E1) in
// the stage 0 step's transaction: hypothesis claims of the task
// (intake.AddHypotheses: a text the task has already keeps its claim), a
// proposed link E1 depends_on each (store.ProposeClaimLinks: it does not
// propagate until a person accepts it), and a hypothesis_split event with
// the model, the sub-claims and each link made or why not. A failed call
// is recorded in the event and changes nothing else.
func (p *Planner) recordSplit(ctx context.Context, tx pgx.Tx, q *store.Queries, taskID int64, sp split, ev *events) error {
	model := p.LLM.SplitModel()
	if sp.err != nil {
		ev.add(EventHypothesisSplit, map[string]any{"model": model, "error": sp.err.Error(), "sub_claims": []any{},
			"note": "the model gave no usable split: the hypothesis is searched alone"})
		return ev.err
	}
	type subClaim struct {
		Claim string `json:"claim"`
		Text  string `json:"text"`
		New   bool   `json:"new"`
	}
	subs := []subClaim{}
	proposals := []store.ProposedLink{}
	if len(sp.subClaims) > 0 {
		added, err := intake.AddHypotheses(ctx, p.Client, tx, taskID, sp.subClaims)
		if err != nil {
			return fmt.Errorf("add the sub-claims: %w", err)
		}
		links := make([]store.NewClaimLink, len(added))
		for i, a := range added {
			subs = append(subs, subClaim{Claim: fmt.Sprintf("E%d", a.EvidenceNo), Text: a.Text, New: a.New})
			links[i] = store.NewClaimLink{TaskID: taskID, From: 1, To: a.EvidenceNo, Relation: belief.DependsOn, Weight: SplitWeight,
				By: "llm:" + model, Reason: fmt.Sprintf("a sub-claim the hypothesis depends on, proposed by %s; it propagates once a person accepts it", model)}
		}
		if proposals, err = q.ProposeClaimLinks(ctx, taskID, links); err != nil {
			return fmt.Errorf("propose links: %w", err)
		}
	}
	ev.add(EventHypothesisSplit, map[string]any{"model": model, "sub_claims": subs, "links": proposals,
		"relation": belief.DependsOn, "weight": SplitWeight,
		"note": "proposed links do not propagate until a person accepts them (enqueue claim link accept)"})
	return ev.err
}
