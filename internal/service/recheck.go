package service

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// CitationRecheck is the latest recheck of a cited span (ARCHITECTURE.md
// §5.10): what became of it, when it was seen, and for an edited span the
// page's text now around where it stood.
type CitationRecheck struct {
	State     string    `json:"state" enum:"unchanged,edited,moved,gone,unreachable" doc:"unchanged: the span's words still stand in the page; edited: they no longer do; moved: the page redirects for good elsewhere; gone: 404 or 410; unreachable: no answer could be had"`
	CheckedAt time.Time `json:"checked_at"`
	// FinalURL is where the page answered from (moved: its new address).
	FinalURL *string `json:"final_url,omitempty"`
	// SeenVersionID is the page version the check saw (a new one when the
	// page changed; the cited version is never replaced).
	SeenVersionID *int64 `json:"seen_page_version_id,omitempty"`
	// TextAround is, for an edited span, the page's text now around where
	// the span stood (at most 600 characters), when it could be placed.
	TextAround *string `json:"text_around,omitempty"`
}

// RecheckSummary is what the rechecks of a task's citations found, by the
// latest check of each: "N citations checked, k edited, g gone".
type RecheckSummary struct {
	Citations      int        `json:"citations" doc:"spans the task cites in pages from the web, counted when its latest recheck round began (0 before the first)"`
	Checked        int        `json:"checked"`
	Unchanged      int        `json:"unchanged"`
	Edited         int        `json:"edited"`
	Moved          int        `json:"moved"`
	Gone           int        `json:"gone"`
	Unreachable    int        `json:"unreachable"`
	LastCheckedAt  *time.Time `json:"last_checked_at,omitempty"`
	RoundStartedAt *time.Time `json:"round_started_at,omitempty" doc:"when the task's latest recheck round began"`
	Summary        string     `json:"summary"`
}

// Changed counts the citations whose latest check found them edited, moved
// or gone.
func (r RecheckSummary) Changed() int { return r.Edited + r.Moved + r.Gone }

// rechecks is the task's recheck summary.
func rechecks(ctx context.Context, st *store.Store, taskID int64) (RecheckSummary, error) {
	r, err := st.TaskRecheckSummary(ctx, taskID)
	if err != nil {
		return RecheckSummary{}, fmt.Errorf("rechecks: %w", err)
	}
	out := RecheckSummary{Citations: int(r.Citations), Checked: int(r.Checked), Unchanged: int(r.Unchanged), Edited: int(r.Edited),
		Moved: int(r.Moved), Gone: int(r.Gone), Unreachable: int(r.Unreachable), RoundStartedAt: r.RoundStartedAt}
	if r.EverChecked {
		out.LastCheckedAt = &r.LastCheckedAt
	}
	out.Summary = fmt.Sprintf("%d of %d citations checked, %d edited, %d moved, %d gone, %d unreachable",
		out.Checked, out.Citations, out.Edited, out.Moved, out.Gone, out.Unreachable)
	return out, nil
}

// spanKey names a cited span: the version and its rune span.
type spanKey struct {
	version    int64
	start, end int32
}

// citationChecks are the latest rechecks of the task's cited spans: all of
// them (for the whole graph), or, with spans, of those alone (an export
// page's, a claim's), so a page of a large task does not read all of the
// task's.
func citationChecks(ctx context.Context, st *store.Store, taskID int64, spans ...spanKey) (map[spanKey]*CitationRecheck, error) {
	out := map[spanKey]*CitationRecheck{}
	add := func(version int64, start, end int32, state string, at time.Time, finalURL *string, seen *int64, around string) {
		c := &CitationRecheck{State: state, CheckedAt: at, FinalURL: finalURL, SeenVersionID: seen}
		if around != "" {
			c.TextAround = &around
		}
		out[spanKey{version, start, end}] = c
	}
	if spans == nil {
		rows, err := st.TaskCitationChecks(ctx, taskID)
		if err != nil {
			return nil, fmt.Errorf("the citations' rechecks: %w", err)
		}
		for _, r := range rows {
			add(r.PageVersionID, r.StartChar, r.EndChar, r.State, r.CheckedAt, r.FinalUrl, r.SeenVersionID, r.Around)
		}
		return out, nil
	}
	p := store.SpanCitationChecksParams{TaskID: taskID,
		PageVersionIds: make([]int64, len(spans)), Starts: make([]int32, len(spans)), Ends: make([]int32, len(spans))}
	for i, k := range spans {
		p.PageVersionIds[i], p.Starts[i], p.Ends[i] = k.version, k.start, k.end
	}
	rows, err := st.SpanCitationChecks(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("the citations' rechecks: %w", err)
	}
	for _, r := range rows {
		add(r.PageVersionID, r.StartChar, r.EndChar, r.State, r.CheckedAt, r.FinalUrl, r.SeenVersionID, r.Around)
	}
	return out, nil
}

// RecheckStarted is what RecheckTask did.
type RecheckStarted struct {
	TaskID   int64  `json:"task_id"`
	JobID    int64  `json:"job_id,omitempty" doc:"the round's job; absent when no round was started"`
	Waiting  bool   `json:"already_waiting" doc:"a round of the task was already waiting or running: no second one was enqueued"`
	Every    string `json:"recheck_every,omitempty" doc:"the task's interval between rounds, when one was set"`
	Schedule string `json:"schedule"`
}

// ParseRecheckEvery reads a task's recheck interval as the API and the CLI
// take it: a duration of at least 1h, "never" (0) or "default" (-1: the
// fleet's); anything else is ErrBadRequest, naming the value.
func ParseRecheckEvery(s string) (time.Duration, error) {
	switch s {
	case "never":
		return 0, nil
	case "default":
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Hour {
		return 0, fmt.Errorf("%w: every %q: want a duration of at least 1h (72h), never or default", ErrBadRequest, s)
	}
	return d, nil
}

// RecheckWanted reads a request for RecheckTask as the API and the MCP
// tool take it: without every, a round starts now; with every
// (ParseRecheckEvery), the task's schedule is set and a round starts only
// when now is true.
func RecheckWanted(every string, now bool) (*time.Duration, bool, error) {
	if every == "" {
		return nil, true, nil
	}
	d, err := ParseRecheckEvery(every)
	if err != nil {
		return nil, false, err
	}
	return &d, now, nil
}

// RecheckTask sets the organization's task's interval between recheck
// rounds when every is not nil (0: never on schedule; a negative value:
// back to the fleet's default), and starts a round now (a recheck job)
// when now is true.
func (s *Service) RecheckTask(ctx context.Context, org string, taskID int64, every *time.Duration, now bool) (RecheckStarted, error) {
	out := RecheckStarted{TaskID: taskID}
	task, err := s.Task(ctx, org, taskID)
	if err != nil {
		return out, err
	}
	if task.Status == "stopped" {
		return out, fmt.Errorf("%w: task %d is stopped: nothing of it is rechecked", ErrBadRequest, taskID)
	}
	err = s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if every != nil {
			iv := pgtype.Interval{Valid: *every >= 0, Microseconds: every.Microseconds()}
			if err := q.SetRecheckEvery(ctx, store.SetRecheckEveryParams{ID: taskID, Every: iv}); err != nil {
				return fmt.Errorf("set the task's recheck interval: %w", err)
			}
		}
		if !now {
			return nil
		}
		res, err := s.client.InsertTx(ctx, tx, jobs.RecheckArgs{TaskID: taskID}, nil)
		if err != nil {
			return fmt.Errorf("enqueue the recheck: %w", err)
		}
		out.JobID, out.Waiting = res.Job.ID, res.UniqueSkippedAsDuplicate
		return nil
	})
	if err != nil {
		return out, err
	}
	switch {
	case every == nil:
		out.Schedule = "unchanged"
	case *every == 0:
		out.Schedule = "never on schedule"
	case *every < 0:
		out.Schedule = "the fleet's default interval"
	default:
		out.Every = every.String()
		out.Schedule = "every " + every.String()
	}
	return out, nil
}
