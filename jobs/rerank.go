package jobs

import (
	"github.com/riverqueue/river"
)

// RerankArgs ranks a task's fragments against a query in three stages
// (ARCHITECTURE.md §5.3) and stores the result as the task's current ranking for that
// query (table task_rankings; `enqueue materials` reads it). Query defaults
// to the task's hypothesis; TopK to Deps.Rerank.TopK. A query is at most
// MaxTextRunes characters.
//
// Jobs are unique per task, query and top_k while waiting or running (not
// once completed: a finished ranking must not block the next). A request
// deduplicated against a running job is not lost: a job that finds the task
// changed while it ranked (new pages, claims or embeddings bump its
// work_version) stores its ranking and enqueues a successor in the same
// transaction, which ranks again with the new evidence.
type RerankArgs struct {
	TaskID int64  `json:"task_id" river:"unique"`
	Query  string `json:"query,omitempty" river:"unique"`
	TopK   int    `json:"top_k,omitempty" river:"unique"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (RerankArgs) Kind() string { return KindRerank }

// TaskOf implements Args: the task the job works for.
func (a RerankArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RerankArgs) InsertOpts() river.InsertOpts { return insertOpts(KindRerank) }

// UnmarshalJSON decodes strictly.
func (a *RerankArgs) UnmarshalJSON(b []byte) error {
	type plain RerankArgs
	var p plain
	err := decodeStrict(KindRerank, b, &p)
	*a = RerankArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a RerankArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	if err := requirePositive(KindRerank, "task_id", a.TaskID); err != nil {
		return err
	}
	if err := CheckText(a.Query, MaxTextRunes); err != nil {
		return argsErr(KindRerank, "query", "%v", err)
	}
	if a.TopK < 0 || a.TopK > 1000 {
		return argsErr(KindRerank, "top_k", "must be between 1 and 1000, got %d", a.TopK)
	}
	return nil
}
