package jobs

import (
	"github.com/riverqueue/river"
)

// CitationGraphArgs follows an academic page's references and citations
// for a task (ARCHITECTURE.md §4.6, §5.4): unique per task and page, so
// every task that reaches a paper expands it once.
type CitationGraphArgs struct {
	TaskID int64 `json:"task_id" river:"unique"`
	PageID int64 `json:"page_id" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (CitationGraphArgs) Kind() string { return KindCitationGraph }

// TaskOf implements Args: the task the job works for.
func (a CitationGraphArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (CitationGraphArgs) InsertOpts() river.InsertOpts { return insertOpts(KindCitationGraph) }

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
