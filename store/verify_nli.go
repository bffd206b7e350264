package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
)

// Judgement is one NLI edge to write: the pair, the relation stored (a
// low-confidence supports/refutes is stored as neutral), the model's own
// label and confidence, and the trust snapshot of both ends.
type Judgement struct {
	ClaimID, FragmentID int64
	Relation, Label     string
	Confidence          float64
	RetrievalScore      float64 // the pair's cosine similarity when selected (clamped to [0, 1]; NaN is 0)
	SourceCategory      string  // "" when unknown
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
	Posteriors []ClaimState
}

// WriteJudgements writes a verify_nli round in the caller's transaction, in
// the store's lock order: a share lock on the task's row first (an active
// task; its work_version is final until commit, and the shards of one task
// do not queue on each other), then the NLI edges in (claim, fragment)
// order, so that concurrent inserters never wait on each other in a cycle,
// then the refused claims' mark, then the recomputed posteriors of the
// round's claims, locked in id order (ARCHITECTURE.md §5.1).
func (q *Queries) WriteJudgements(ctx context.Context, j Judgements) (JudgementsWritten, error) {
	var out JudgementsWritten
	task, err := q.ShareLockActiveTask(ctx, j.TaskID)
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
			p.RetrievalScores = append(p.RetrievalScores, clamp01(e.RetrievalScore))
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
	// the round's claims are the task's, whose row is share-locked above
	if out.Posteriors, err = q.recomputePosteriors(ctx, j.ClaimIDs, &task); err != nil {
		return out, err
	}
	return out, nil
}

// ClaimRange is one verify_nli shard: the task's claims with ids in
// [From, To].
type ClaimRange struct{ From, To int64 }

// Shards is one page of a dispatch: the shards to enqueue and, when the
// task has more, the claim id the next page starts from (0 when none).
type Shards struct {
	Ranges []ClaimRange
	Next   int64
}

// VerifyShards returns, from claim id from on, at most limit shards of width
// claim ids that hold the task's claims still to work (all of them, or
// those of claimIDs), in order, leaving out those with a job waiting or
// running (UnfinishedVerifyShards says why); under a share lock on the
// task's row taken first: a writer adding pages or claims to the task
// commits before, or waits until the caller commits the shard jobs it
// enqueues, so no page or claim falls between them.
func (q *Queries) VerifyShards(ctx context.Context, taskID int64, claimIDs []int64, width, from int64, limit int) (Shards, error) {
	var out Shards
	if _, err := q.ShareLockActiveTask(ctx, taskID); err != nil {
		return out, err
	}
	if claimIDs == nil {
		claimIDs = []int64{}
	}
	buckets, err := q.TaskClaimShards(ctx, TaskClaimShardsParams{TaskID: taskID, ClaimIds: claimIDs, Width: width,
		FromID: from, MaxShards: int32(limit + 1)})
	if err != nil {
		return out, fmt.Errorf("list shards: %w", err)
	}
	if len(buckets) > limit {
		out.Next, buckets = buckets[limit]*width, buckets[:limit]
	}
	rows, err := q.UnfinishedVerifyShards(ctx, strconv.FormatInt(taskID, 10))
	if err != nil {
		return out, fmt.Errorf("list waiting shards: %w", err)
	}
	waiting := make(map[ClaimRange]bool, len(rows))
	for _, r := range rows {
		waiting[ClaimRange{From: r.ClaimFrom, To: r.ClaimTo}] = true
	}
	for _, b := range buckets {
		if r := (ClaimRange{From: max(b*width, 1), To: b*width + width - 1}); !waiting[r] {
			out.Ranges = append(out.Ranges, r)
		}
	}
	return out, nil
}

// clamp01 is x in [0, 1], NaN as 0 (edges.retrieval_score's range).
func clamp01(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}
