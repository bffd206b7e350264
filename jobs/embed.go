package jobs

import (
	"fmt"

	"github.com/riverqueue/river"
)

// EmbedArgs embeds fragments that lack an embedding for the configured model:
// either the listed fragments or every fragment of one page version.
type EmbedArgs struct {
	// TaskID is informational: it lets `enqueue status` count the job, and
	// its cost (task_costs), with its task.
	TaskID        int64   `json:"task_id,omitempty"`
	FragmentIDs   []int64 `json:"fragment_ids,omitempty"`
	PageVersionID int64   `json:"page_version_id,omitempty"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (EmbedArgs) Kind() string { return KindEmbed }

// TaskOf implements Args: the task the job works for (0 when the job names none).
func (a EmbedArgs) TaskOf() int64 { return a.TaskID }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (EmbedArgs) InsertOpts() river.InsertOpts { return insertOpts(KindEmbed) }

// UnmarshalJSON decodes strictly (see TargetQueueArgs.UnmarshalJSON).
func (a *EmbedArgs) UnmarshalJSON(b []byte) error {
	type plain EmbedArgs
	var p plain
	err := decodeStrict(KindEmbed, b, &p)
	*a = EmbedArgs(p)
	a.decodeErr = err
	return nil
}

// MaxEmbedFragments bounds one embed job.
const MaxEmbedFragments = 10000

// Validate reports the first problem with the args.
func (a EmbedArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	switch {
	case len(a.FragmentIDs) == 0 && a.PageVersionID == 0:
		return argsErr(KindEmbed, "fragment_ids", "required (or page_version_id)")
	case len(a.FragmentIDs) > 0 && a.PageVersionID != 0:
		return argsErr(KindEmbed, "page_version_id", "give fragment_ids or page_version_id, not both")
	case len(a.FragmentIDs) > MaxEmbedFragments:
		return argsErr(KindEmbed, "fragment_ids", "at most %d ids per job, got %d", MaxEmbedFragments, len(a.FragmentIDs))
	case a.PageVersionID < 0:
		return argsErr(KindEmbed, "page_version_id", "must be a positive integer")
	case a.TaskID < 0:
		return argsErr(KindEmbed, "task_id", "must be a positive integer, got %d", a.TaskID)
	}
	for i, id := range a.FragmentIDs {
		if id <= 0 {
			return argsErr(KindEmbed, fmt.Sprintf("fragment_ids[%d]", i), "must be a positive integer, got %d", id)
		}
	}
	return nil
}
