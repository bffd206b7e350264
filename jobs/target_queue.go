package jobs

import (
	"strings"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// Target kinds.
const (
	TargetURL   = "url"
	TargetQuery = "query"
	TargetDOI   = "doi"
)

// Target is what a target_queue job takes in: a URL, a DOI or a search query.
type Target struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Normalized validates the target and returns it with its value normalised
// (URLs by ident.NormalizeURL, DOIs lowercased without resolver prefix,
// queries with whitespace collapsed).
func (t Target) Normalized() (Target, error) {
	v := strings.TrimSpace(t.Value)
	if v == "" {
		return t, argsErr(KindTargetQueue, "target.value", "required")
	}
	switch t.Kind {
	case TargetURL:
		n, err := ident.NormalizeURL(v)
		if err != nil {
			return t, argsErr(KindTargetQueue, "target.value", "invalid URL: %v", err)
		}
		return Target{Kind: t.Kind, Value: n}, nil
	case TargetDOI:
		n := ident.NormalizeDOI(v)
		if n == "" {
			return t, argsErr(KindTargetQueue, "target.value", "invalid DOI %q", v)
		}
		return Target{Kind: t.Kind, Value: n}, nil
	case TargetQuery:
		return Target{Kind: t.Kind, Value: strings.Join(strings.Fields(v), " ")}, nil
	case "":
		return t, argsErr(KindTargetQueue, "target.kind", "required (url, doi or query)")
	default:
		return t, argsErr(KindTargetQueue, "target.kind", "unknown kind %q (want url, doi or query)", t.Kind)
	}
}

// TargetQueueArgs takes one target into a task: fetch, archive, fragment,
// extract claims, then enqueue embed and verify_nli (DESIGN §4). Unique per
// task and target: a target is extracted once per task, never again.
type TargetQueueArgs struct {
	TaskID int64  `json:"task_id" river:"unique"`
	Target Target `json:"target" river:"unique"`
	Depth  int    `json:"depth,omitempty"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (TargetQueueArgs) Kind() string { return KindTargetQueue }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (TargetQueueArgs) InsertOpts() river.InsertOpts { return insertOpts(KindTargetQueue) }

// UnmarshalJSON decodes strictly; a problem is kept for Validate so the worker
// can cancel the job with a clear message instead of River retrying it.
func (a *TargetQueueArgs) UnmarshalJSON(b []byte) error {
	type plain TargetQueueArgs
	var p plain
	err := decodeStrict(KindTargetQueue, b, &p)
	*a = TargetQueueArgs(p)
	a.decodeErr = err
	return nil
}

// Validate reports the first problem with the args.
func (a TargetQueueArgs) Validate() error {
	if a.decodeErr != nil {
		return a.decodeErr
	}
	if err := requirePositive(KindTargetQueue, "task_id", a.TaskID); err != nil {
		return err
	}
	if a.Depth < 0 {
		return argsErr(KindTargetQueue, "depth", "must not be negative")
	}
	_, err := a.Target.Normalized()
	return err
}
