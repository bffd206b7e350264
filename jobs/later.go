package jobs

import (
	"fmt"

	"github.com/riverqueue/river"
)

// The args of the kinds whose workers land after the backbone. Their contract
// (kind, queue, priority, fields, validation) is fixed here so that other
// services can already insert them; a worker version that does not run a kind
// does not serve its queue.

// CitationGraphArgs follows an academic page's references and citations (DESIGN §5.4).
type CitationGraphArgs struct {
	TaskID int64 `json:"task_id"`
	PageID int64 `json:"page_id" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (CitationGraphArgs) Kind() string { return KindCitationGraph }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (CitationGraphArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueCitation, Priority: 4, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// UnmarshalJSON decodes strictly.
func (a *CitationGraphArgs) UnmarshalJSON(b []byte) error {
	type plain CitationGraphArgs
	var p plain
	err := decodeStrict(KindCitationGraph, b, &p)
	*a = CitationGraphArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a CitationGraphArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	if err := requirePositive(KindCitationGraph, "task_id", a.TaskID); err != nil {
		return err
	}
	return requirePositive(KindCitationGraph, "page_id", a.PageID)
}

// Cleanup modes (DESIGN §5.6). Orphans is the periodic sweep: hard without
// a task (task_id absent).
const (
	CleanupSoft    = "soft"
	CleanupHard    = "hard"
	CleanupOrphans = "orphans"
)

// CleanupArgs removes a task's data (DESIGN §5.6): soft deletes the task's
// task-scoped rows, hard then the orphans of the whole graph; orphans (no
// task_id) only the latter. Unique while waiting or running.
type CleanupArgs struct {
	TaskID int64  `json:"task_id,omitempty" river:"unique"`
	Mode   string `json:"mode" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (CleanupArgs) Kind() string { return KindCleanup }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (CleanupArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, Priority: 3, MaxAttempts: 5,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinishedStates}}
}

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
		return argsErr(KindCleanup, "mode", "unknown mode %q (want soft, hard or orphans)", a.Mode)
	}
}

// Validatable is implemented by every args type of this package.
type Validatable interface {
	river.JobArgs
	Validate() error
}

// ParseArgs decodes and validates raw JSON args for a kind, as the workers
// would. The enqueue CLI uses it to refuse bad args before inserting.
func ParseArgs(kind string, raw []byte) (Validatable, error) {
	var v Validatable
	switch kind {
	case KindTargetQueue:
		var a TargetQueueArgs
		_ = a.UnmarshalJSON(raw)
		if a.Validate() == nil {
			// Insert the normalised target so uniqueness matches `target add`.
			a.Target, _ = a.Target.Normalized()
		}
		v = a
	case KindEmbed:
		var a EmbedArgs
		_ = a.UnmarshalJSON(raw)
		v = a
	case KindVerifyNLI:
		var a VerifyNLIArgs
		_ = a.UnmarshalJSON(raw)
		v = a
	case KindRerank:
		var a RerankArgs
		_ = a.UnmarshalJSON(raw)
		v = a
	case KindCitationGraph:
		var a CitationGraphArgs
		_ = a.UnmarshalJSON(raw)
		v = a
	case KindCleanup:
		var a CleanupArgs
		_ = a.UnmarshalJSON(raw)
		v = a
	default:
		return nil, fmt.Errorf("unknown job kind %q (want one of %s, %s, %s, %s, %s, %s)", kind,
			KindTargetQueue, KindEmbed, KindVerifyNLI, KindRerank, KindCitationGraph, KindCleanup)
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}
