package jobs

import (
	"fmt"

	"github.com/riverqueue/river"
)

// VerifyNLIArgs runs cross-source verification (ARCHITECTURE.md §5.2) of a task's
// claims. A job is one of two things:
//
//   - a shard: ClaimFrom and ClaimTo set, it judges the task's claims with
//     ids in [ClaimFrom, ClaimTo] (EVF_VERIFY_SHARD_CLAIMS ids; at most
//     MaxClaimIDs) and at most EVF_VERIFY_JOB_PAIRS pairs per
//     run, handing the rest to a successor of the same shard;
//   - a dispatch: no range, it enqueues the shards of the task's claims
//     (all of them, or those of ClaimIDs), at most 1,000 per job and the
//     rest by a continuation (DispatchFrom), and judges nothing itself. A new
//     page re-opens every shard (its fragments may be evidence for any
//     claim); new claims re-open their own shards only.
//
// PageID names the page whose arrival triggered the job; it is
// informational. Jobs are unique per task, claim set and range while
// waiting or running; a shard that finds the task changed while it ran
// (new pages or claims) goes round again before completing, so no
// follow-up is lost. Many workers share one task's verification, one shard
// each.
type VerifyNLIArgs struct {
	TaskID    int64   `json:"task_id" river:"unique"`
	PageID    *int64  `json:"page_id,omitempty"`
	ClaimIDs  []int64 `json:"claim_ids,omitempty" river:"unique"`
	ClaimFrom int64   `json:"claim_from,omitempty" river:"unique"`
	ClaimTo   int64   `json:"claim_to,omitempty" river:"unique"`
	// DispatchFrom continues a dispatch from this claim id: one dispatch
	// job enqueues at most 1,000 shards, then its continuation the next.
	DispatchFrom int64 `json:"dispatch_from,omitempty" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (VerifyNLIArgs) Kind() string { return KindVerifyNLI }

// TaskOf implements Args: the task the job works for.
func (a VerifyNLIArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (VerifyNLIArgs) InsertOpts() river.InsertOpts { return insertOpts(KindVerifyNLI) }

// IsShard reports whether the job judges a range of claims (else it
// dispatches shards).
func (a VerifyNLIArgs) IsShard() bool { return a.ClaimFrom > 0 }

// VerifyShard returns the shard job of task's claims with ids in [from, to].
func VerifyShard(task, from, to int64) VerifyNLIArgs {
	return VerifyNLIArgs{TaskID: task, ClaimFrom: from, ClaimTo: to}
}

// UnmarshalJSON decodes strictly (see TargetQueueArgs.UnmarshalJSON).
func (a *VerifyNLIArgs) UnmarshalJSON(b []byte) error {
	type plain VerifyNLIArgs
	var p plain
	err := decodeStrict(KindVerifyNLI, b, &p)
	*a = VerifyNLIArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a VerifyNLIArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	if err := requirePositive(KindVerifyNLI, "task_id", a.TaskID); err != nil {
		return err
	}
	if a.PageID != nil && *a.PageID <= 0 {
		return argsErr(KindVerifyNLI, "page_id", "must be a positive integer, got %d", *a.PageID)
	}
	if a.ClaimFrom != 0 || a.ClaimTo != 0 {
		if err := requirePositive(KindVerifyNLI, "claim_from", a.ClaimFrom); err != nil {
			return err
		}
		if a.ClaimTo < a.ClaimFrom {
			return argsErr(KindVerifyNLI, "claim_to", "must be at least claim_from (%d), got %d", a.ClaimFrom, a.ClaimTo)
		}
		if a.ClaimTo-a.ClaimFrom >= MaxClaimIDs {
			return argsErr(KindVerifyNLI, "claim_to", "a shard spans at most %d claim ids, got %d to %d", MaxClaimIDs, a.ClaimFrom, a.ClaimTo)
		}
		if len(a.ClaimIDs) > 0 {
			return argsErr(KindVerifyNLI, "claim_ids", "a shard (claim_from, claim_to) takes no claim ids")
		}
		if a.DispatchFrom != 0 {
			return argsErr(KindVerifyNLI, "dispatch_from", "a shard (claim_from, claim_to) is not a dispatch")
		}
	}
	if a.DispatchFrom < 0 {
		return argsErr(KindVerifyNLI, "dispatch_from", "must not be negative, got %d", a.DispatchFrom)
	}
	if len(a.ClaimIDs) > MaxClaimIDs {
		return argsErr(KindVerifyNLI, "claim_ids", "at most %d ids per job, got %d", MaxClaimIDs, len(a.ClaimIDs))
	}
	for i, id := range a.ClaimIDs {
		if id <= 0 {
			return argsErr(KindVerifyNLI, fmt.Sprintf("claim_ids[%d]", i), "must be a positive integer, got %d", id)
		}
	}
	return nil
}
