package jobs

import (
	"net/url"
	"strings"
	"unicode/utf8"

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
// (URLs by ident.NormalizeURL, DOIs by ident.ParseDOI, queries with
// whitespace collapsed). A value that could never be fetched or stored —
// too long, invalid UTF-8, a control character, a percent-encoded NUL — is
// refused here, so that its job is cancelled on its first attempt.
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
		if len(n) > MaxURLBytes {
			return t, argsErr(KindTargetQueue, "target.value", "URL longer than %d bytes", MaxURLBytes)
		}
		// Escaped, a NUL is harmless text; decoded, it is a string Postgres
		// and most servers refuse. (Invalid UTF-8 after decoding stays
		// allowed: legacy Latin-1 paths are real, and the URL is stored escaped.)
		if decoded, err := url.PathUnescape(n); err == nil && strings.ContainsRune(decoded, 0) {
			return t, argsErr(KindTargetQueue, "target.value", "URL encodes a NUL character")
		}
		return Target{Kind: t.Kind, Value: n}, nil
	case TargetDOI:
		n, err := ident.ParseDOI(v)
		if err != nil {
			return t, argsErr(KindTargetQueue, "target.value", "invalid DOI %q: %v", clip(v, 80), err)
		}
		return Target{Kind: t.Kind, Value: n}, nil
	case TargetQuery:
		if err := checkText(v); err != nil {
			return t, argsErr(KindTargetQueue, "target.value", "query %v", err)
		}
		q := strings.Join(strings.Fields(v), " ")
		if n := utf8.RuneCountInString(q); n > MaxQueryRunes {
			return t, argsErr(KindTargetQueue, "target.value", "query of %d characters, more than %d", n, MaxQueryRunes)
		}
		return Target{Kind: t.Kind, Value: q}, nil
	case "":
		return t, argsErr(KindTargetQueue, "target.kind", "required (url, doi or query)")
	default:
		return t, argsErr(KindTargetQueue, "target.kind", "unknown kind %q (want url, doi or query)", clip(t.Kind, 40))
	}
}

// TargetQueueArgs takes one target into a task: fetch, archive, fragment,
// extract claims, then enqueue embed and verify_nli (ARCHITECTURE.md §4). Unique per
// task and target: a target is extracted once per task, never again.
type TargetQueueArgs struct {
	TaskID int64  `json:"task_id" river:"unique"`
	Target Target `json:"target" river:"unique"`
	Depth  int    `json:"depth,omitempty"`
	// Fetch, for a query target, is how many of its result URLs are fetched
	// now; the others are registered deferred, for the task's retrieval
	// planner to release while the claim's fetch budget allows. 0: all.
	Fetch int `json:"fetch,omitempty"`

	decodeErr error
}

// Kind implements river.JobArgs.
func (TargetQueueArgs) Kind() string { return KindTargetQueue }

// TaskOf implements Args: the task the job works for.
func (a TargetQueueArgs) TaskOf() int64 { return a.TaskID }

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
	if a.Depth < 0 || a.Depth > MaxTargetDepth {
		return argsErr(KindTargetQueue, "depth", "%d is outside 0–%d", a.Depth, MaxTargetDepth)
	}
	if a.Fetch < 0 || a.Fetch > MaxSearchResults {
		return argsErr(KindTargetQueue, "fetch", "%d is outside 0–%d", a.Fetch, MaxSearchResults)
	}
	t, err := a.Target.Normalized()
	if err == nil && a.Fetch > 0 && t.Kind != TargetQuery {
		return argsErr(KindTargetQueue, "fetch", "is for query targets only (this one is %s)", t.Kind)
	}
	return err
}
