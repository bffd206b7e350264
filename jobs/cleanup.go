package jobs

import (
	"github.com/riverqueue/river"
)

// Cleanup modes (ARCHITECTURE.md §5.6). Orphans is the periodic sweep: hard without
// a task (task_id absent).
const (
	CleanupSoft    = "soft"
	CleanupHard    = "hard"
	CleanupOrphans = "orphans"
)

// CleanupArgs removes a task's data (ARCHITECTURE.md §5.6): soft deletes the task's
// task-scoped rows, hard then the orphans of the whole graph; orphans (no
// task_id) only the latter. Unique while waiting or running.
type CleanupArgs struct {
	TaskID int64  `json:"task_id,omitempty" river:"unique"`
	Mode   string `json:"mode" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (CleanupArgs) Kind() string { return KindCleanup }

// TaskOf implements Args: the task the job works for (0 for the orphan sweep).
func (a CleanupArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (CleanupArgs) InsertOpts() river.InsertOpts { return insertOpts(KindCleanup) }

// UnmarshalJSON decodes strictly.
func (a *CleanupArgs) UnmarshalJSON(b []byte) error {
	type plain CleanupArgs
	var p plain
	err := decodeStrict(KindCleanup, b, &p)
	*a = CleanupArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a CleanupArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	switch a.Mode {
	case CleanupSoft, CleanupHard:
		return requirePositive(KindCleanup, "task_id", a.TaskID)
	case CleanupOrphans:
		if a.TaskID != 0 {
			return argsErr(KindCleanup, "task_id", "must be absent with mode orphans (the sweep is not about one task), got %d", a.TaskID)
		}
		return nil
	case "":
		return argsErr(KindCleanup, "mode", "required (soft, hard or orphans)")
	default:
		return argsErr(KindCleanup, "mode", "unknown mode %q (want soft, hard or orphans)", clip(a.Mode, maxEchoBytes))
	}
}
