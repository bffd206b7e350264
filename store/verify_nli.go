package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
)

// Judgement is one NLI edge to write: the pair, the relation stored (a
// low-confidence supports/refutes is stored as neutral), the model's own
// label and confidence, and the trust snapshot of both ends.
type Judgement struct {
	ClaimID, FragmentID int64
	Relation, Label     string
	Confidence          float64
	SourceCategory      string // "" when unknown
	SourceTrust         string
	TargetTrust         string
}

// Judgements is one verify_nli round to write.
type Judgements struct {
	TaskID   int64
	Model    string // NLI model id stored on every edge
	Edges    []Judgement
	ClaimIDs []int64 // the round's claims: their posteriors are recomputed
	Refused  []RefusedClaim
}

// RefusedClaim is a claim the fleet cannot work, marked so (claims.refused_reason).
type RefusedClaim struct {
	ID     int64
	Reason string
}

// JudgementsWritten is what WriteJudgements did.
type JudgementsWritten struct {
	Task       LockTaskRow // the task as locked (its work_version tells whether it changed)
	Inserted   int         // edges inserted; the others were judged concurrently (ON CONFLICT)
	Posteriors []evidence.Posterior
}

// WriteJudgements writes a verify_nli round in the caller's transaction, in
// the store's lock order: the task's row lock first (an active task; writers
// of a task serialise on it), then the NLI edges in (claim, fragment) order,
// so that concurrent inserters never wait on each other in a cycle, then the
// refused claims' mark, then the recomputed posteriors of the round's claims
// (ARCHITECTURE.md §5.1).
func (q *Queries) WriteJudgements(ctx context.Context, j Judgements) (JudgementsWritten, error) {
	var out JudgementsWritten
	task, err := q.LockActiveTask(ctx, j.TaskID)
	if err != nil {
		return out, err
	}
	out.Task = task
	edges := slices.Clone(j.Edges)
	slices.SortFunc(edges, func(a, b Judgement) int {
		return cmp.Or(cmp.Compare(a.ClaimID, b.ClaimID), cmp.Compare(a.FragmentID, b.FragmentID))
	})
	if len(edges) > 0 {
		p := InsertNLIEdgesParams{NliModel: j.Model}
		for _, e := range edges {
			p.FragmentIds = append(p.FragmentIds, e.FragmentID)
			p.ClaimIds = append(p.ClaimIds, e.ClaimID)
			p.Relations = append(p.Relations, e.Relation)
			p.Labels = append(p.Labels, e.Label)
			p.Confidences = append(p.Confidences, e.Confidence)
			p.DomainCategories = append(p.DomainCategories, e.SourceCategory)
			p.SourceTrustLevels = append(p.SourceTrustLevels, e.SourceTrust)
			p.TargetTrustLevels = append(p.TargetTrustLevels, e.TargetTrust)
		}
		n, err := q.InsertNLIEdges(ctx, p)
		if err != nil {
			return out, fmt.Errorf("insert NLI edges: %w", err)
		}
		out.Inserted = int(n)
	}
	if len(j.Refused) > 0 {
		p := RefuseClaimsParams{TaskID: j.TaskID}
		for _, r := range j.Refused {
			p.Ids = append(p.Ids, r.ID)
			p.Reasons = append(p.Reasons, r.Reason)
		}
		if err := q.RefuseClaims(ctx, p); err != nil {
			return out, fmt.Errorf("mark refused claims: %w", err)
		}
	}
	if out.Posteriors, err = q.RecomputePosteriors(ctx, j.ClaimIDs); err != nil {
		return out, err
	}
	return out, nil
}
