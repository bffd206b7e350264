package jobs

import (
	"github.com/riverqueue/river"
)

// RecheckArgs re-checks the sources a task cites (ARCHITECTURE.md §5.10):
// each cited page is fetched again, politely, and every span the task cites
// in it classified (unchanged, edited, moved, gone, unreachable); a page
// that changed gets a new version, and nothing cited is replaced. A job is
// one of three things:
//
//   - the sweep: no field set (the periodic job), it starts a round for
//     every task that is due (its interval passed, younger than the
//     maximum age, with citations);
//   - a round: TaskID alone, it enqueues one job per cited page of the
//     task, at most 1,000 per job and the rest by a continuation
//     (PageFrom); `enqueue task recheck` inserts one;
//   - a page: TaskID and PageID, it fetches the page and classifies the
//     task's citations of it.
//
// Jobs are unique by their args while waiting or running.
type RecheckArgs struct {
	TaskID int64 `json:"task_id,omitempty" river:"unique"`
	PageID int64 `json:"page_id,omitempty" river:"unique"`
	// PageFrom continues a round from this page id.
	PageFrom int64 `json:"page_from,omitempty" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (RecheckArgs) Kind() string { return KindRecheck }

// TaskOf implements Args: the task the job works for (0 for the sweep).
func (a RecheckArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RecheckArgs) InsertOpts() river.InsertOpts { return insertOpts(KindRecheck) }

// IsSweep reports whether the job is the periodic sweep, IsPage whether it
// checks one page (else it starts a task's round).
func (a RecheckArgs) IsSweep() bool { return a.TaskID == 0 }
func (a RecheckArgs) IsPage() bool  { return a.PageID > 0 }

// UnmarshalJSON decodes strictly.
func (a *RecheckArgs) UnmarshalJSON(b []byte) error {
	type plain RecheckArgs
	var p plain
	err := decodeStrict(KindRecheck, b, &p)
	*a = RecheckArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a RecheckArgs) Validate() error {
	switch {
	case a.decodeErr != nil:
		return a.decodeErr
	case a.TaskID < 0:
		return argsErr(KindRecheck, "task_id", "must be a positive integer, got %d", a.TaskID)
	case a.PageID < 0:
		return argsErr(KindRecheck, "page_id", "must be a positive integer, got %d", a.PageID)
	case a.PageFrom < 0:
		return argsErr(KindRecheck, "page_from", "must be a positive integer, got %d", a.PageFrom)
	case a.TaskID == 0 && (a.PageID != 0 || a.PageFrom != 0):
		return argsErr(KindRecheck, "task_id", "required with page_id or page_from (only the sweep names no task)")
	case a.PageID != 0 && a.PageFrom != 0:
		return argsErr(KindRecheck, "page_from", "must be absent with page_id (a page job checks one page)")
	}
	return nil
}
