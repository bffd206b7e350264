package jobs

import (
	"fmt"

	"github.com/riverqueue/river"
)

// VerifyNLIArgs runs cross-source verification (ARCHITECTURE.md §5.2) for a task's
// claims (all of them, or ClaimIDs). PageID names the page whose arrival
// triggered the job; it is informational. Jobs are unique per task and claim
// set while waiting or running; a job that finds the task changed while it
// ran (new pages or claims) goes round again before completing, so no
// follow-up is lost.
type VerifyNLIArgs struct {
	TaskID   int64   `json:"task_id" river:"unique"`
	PageID   *int64  `json:"page_id,omitempty"`
	ClaimIDs []int64 `json:"claim_ids,omitempty" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (VerifyNLIArgs) Kind() string { return KindVerifyNLI }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (VerifyNLIArgs) InsertOpts() river.InsertOpts { return insertOpts(KindVerifyNLI) }

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
