package service

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// ErrJobNotFound: no job of a task of the caller's organization has this
// id. A job of another organization's task, and a job of no task (the
// orphan sweep), is not found like one that does not exist.
var ErrJobNotFound = errors.New("job does not exist")

// JobSummary is one job of a task as ListJobs, RetryJob and CancelJob show
// it.
type JobSummary struct {
	ID          int64      `json:"id"`
	Kind        string     `json:"kind"`
	State       string     `json:"state"`
	Queue       string     `json:"queue"`
	Priority    int        `json:"priority"`
	Attempt     int        `json:"attempt"`
	MaxAttempts int        `json:"max_attempts"`
	LastError   string     `json:"last_error"`        // the last attempt's error, at most 1,000 characters; "" when none
	Failure     string     `json:"failure,omitempty"` // the fleet's reason (errs.ErrorTable), "" when none was recorded
	CreatedAt   time.Time  `json:"created_at"`
	ScheduledAt time.Time  `json:"scheduled_at"`
	FinalizedAt *time.Time `json:"finalized_at"`
}

// JobPage is one page of ListJobs: Next is the cursor of the next page, ""
// at the end.
type JobPage struct {
	TaskID int64        `json:"task_id"`
	State  string       `json:"state,omitempty"` // the state listed, "" for all
	Jobs   []JobSummary `json:"items"`
	Next   string       `json:"next_cursor,omitempty"`
}

// JobStates are River's job states, the values ListJobs filters on.
func JobStates() []string {
	states := make([]string, 0, len(rivertype.JobStates()))
	for _, s := range rivertype.JobStates() {
		states = append(states, string(s))
	}
	return states
}

// ListJobs lists the jobs of the organization's task (every job whose args
// name it), newest first, in one state ("" for all), limit at a time (0:
// DefaultListLimit, at most MaxListLimit) from cursor ("" from the newest).
func (s *Service) ListJobs(ctx context.Context, org string, taskID int64, state string, limit int, cursor string) (JobPage, error) {
	out := JobPage{TaskID: taskID, State: state, Jobs: []JobSummary{}}
	limit, err := listLimit(limit)
	if err != nil {
		return out, err
	}
	before, err := parseIDCursor(cursor)
	if err != nil {
		return out, err
	}
	p := store.TaskJobsParams{TaskID: strconv.FormatInt(taskID, 10), BeforeID: before, MaxRows: int32(limit + 1)}
	if state != "" {
		if !slices.Contains(JobStates(), state) {
			return out, fmt.Errorf("%w: state %q: want one of %s", ErrBadRequest, state, strings.Join(JobStates(), ", "))
		}
		p.State = &state
	}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	rows, err := s.st.TaskJobs(ctx, p)
	if err != nil {
		return out, fmt.Errorf("list jobs: %w", err)
	}
	for i, r := range rows {
		if i == limit {
			out.Next = strconv.FormatInt(rows[limit-1].ID, 10)
			break
		}
		out.Jobs = append(out.Jobs, JobSummary{ID: r.ID, Kind: r.Kind, State: r.State, Queue: r.Queue, Priority: int(r.Priority),
			Attempt: int(r.Attempt), MaxAttempts: int(r.MaxAttempts), LastError: r.LastError, Failure: r.Failure,
			CreatedAt: r.CreatedAt, ScheduledAt: r.ScheduledAt, FinalizedAt: r.FinalizedAt})
	}
	return out, nil
}

// JobAction is what RetryJob or CancelJob did: the job as it is now and the
// state it was in.
type JobAction struct {
	TaskID int64      `json:"task_id"`
	Was    string     `json:"was"` // the job's state before
	Job    JobSummary `json:"job"` // the job after
}

// RetryJob makes a job of the organization's task available to run again
// at once, through River's JobRetry: a finished job (completed, cancelled,
// discarded) runs again, a waiting one runs now, a running one is left as
// it is. It is new work: a completed task is reopened in the same
// transaction. A job of a stopped task is not retried (errs.ErrTaskStopped).
func (s *Service) RetryJob(ctx context.Context, org string, jobID int64) (JobAction, error) {
	return s.actOnJob(ctx, org, jobID, func(task store.Task, _ rivertype.JobState) (*rivertype.JobRow, error) {
		if task.Status == "stopped" {
			return nil, errs.Task(task.ID, errs.ErrTaskStopped)
		}
		var row *rivertype.JobRow
		err := s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
			if err := q.ReopenTask(ctx, task.ID); err != nil {
				return fmt.Errorf("reopen task %d: %w", task.ID, err)
			}
			var err error
			row, err = s.client.JobRetryTx(ctx, tx, jobID)
			return err
		})
		return row, err
	})
}

// JobCancel is a person's cancel of a job: who and why.
type JobCancel struct {
	JobID  int64
	By     string // who, recorded with the reason
	Reason string // why; "" records none but who
}

// CancelJob cancels a job of the organization's task through River's
// JobCancel: a waiting job is cancelled at once, a running one is asked to
// stop (it ends cancelled when its worker sees the request), a finished one
// is left as it is. A job cancelled at once records who and why in its
// errors and its output's failure (errs.CancelledByPerson), and a
// target_queue job's waiting target ends cancelled with the reason, in
// the same transaction.
func (s *Service) CancelJob(ctx context.Context, org string, c JobCancel) (JobAction, error) {
	for field, v := range map[string]string{"reason": c.Reason, "by": c.By} {
		if n := utf8.RuneCountInString(v); n > jobs.MaxTextRunes {
			return JobAction{}, fmt.Errorf("%s: %d characters, more than %d: %w", field, n, jobs.MaxTextRunes, errs.ErrBadInput)
		}
	}
	reason := "cancelled by " + cmp.Or(c.By, "a person")
	if c.Reason != "" {
		reason += ": " + c.Reason
	}
	return s.actOnJob(ctx, org, c.JobID, func(_ store.Task, was rivertype.JobState) (*rivertype.JobRow, error) {
		var row *rivertype.JobRow
		err := s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
			var err error
			if row, err = s.client.JobCancelTx(ctx, tx, c.JobID); err != nil {
				return err
			}
			if was == rivertype.JobStateCancelled || row.State != rivertype.JobStateCancelled {
				return nil // cancelled before, or running: it ends cancelled when its worker sees the request
			}
			if _, err := q.RecordJobCancel(ctx, store.RecordJobCancelParams{JobID: c.JobID, Reason: reason, Failure: string(errs.CancelledByPerson)}); err != nil {
				return fmt.Errorf("record the cancel of job %d: %w", c.JobID, err)
			}
			return nil
		})
		return row, err
	})
}

// actOnJob checks that the job is of one of the organization's tasks, then
// acts on it.
func (s *Service) actOnJob(ctx context.Context, org string, jobID int64, act func(task store.Task, was rivertype.JobState) (*rivertype.JobRow, error)) (JobAction, error) {
	notFound := fmt.Errorf("job %d: %w", jobID, ErrJobNotFound)
	raw, err := s.st.JobTaskID(ctx, jobID)
	if store.IsNotFound(err) {
		return JobAction{}, notFound
	}
	if err != nil {
		return JobAction{}, fmt.Errorf("read job %d: %w", jobID, err)
	}
	taskID, perr := strconv.ParseInt(raw, 10, 64)
	if perr != nil || taskID <= 0 {
		return JobAction{}, notFound
	}
	task, err := s.Task(ctx, org, taskID)
	if errors.Is(err, errs.ErrTaskNotFound) {
		return JobAction{}, notFound
	}
	if err != nil {
		return JobAction{}, err
	}
	out := JobAction{TaskID: taskID}
	before, err := s.client.JobGet(ctx, jobID)
	if err != nil {
		return out, jobErr(jobID, err, notFound)
	}
	out.Was = string(before.State)
	after, err := act(task, before.State)
	if err != nil {
		return out, jobErr(jobID, err, notFound)
	}
	out.Job = summaryOf(after)
	return out, nil
}

// jobErr is River's error about a job: gone since it was read is not found.
func jobErr(jobID int64, err, notFound error) error {
	if errors.Is(err, rivertype.ErrNotFound) {
		return notFound
	}
	var te *errs.TaskError
	if errors.As(err, &te) {
		return err
	}
	return fmt.Errorf("job %d: %w", jobID, err)
}

// summaryOf shows a River job row as ListJobs does.
func summaryOf(j *rivertype.JobRow) JobSummary {
	out := JobSummary{ID: j.ID, Kind: j.Kind, State: string(j.State), Queue: j.Queue, Priority: j.Priority, Attempt: j.Attempt,
		MaxAttempts: j.MaxAttempts, CreatedAt: j.CreatedAt, ScheduledAt: j.ScheduledAt, FinalizedAt: j.FinalizedAt}
	if n := len(j.Errors); n > 0 {
		out.LastError = firstRunes(j.Errors[n-1].Error, maxJobError)
	}
	var meta struct {
		Output struct {
			Failure string `json:"failure"`
		} `json:"output"`
	}
	if json.Unmarshal(j.Metadata, &meta) == nil {
		out.Failure = meta.Output.Failure
	}
	return out
}

// maxJobError is how much of a job's last error is shown (as TaskJobs
// clips it).
const maxJobError = 1000

// firstRunes is s's first n characters, as SQL's left(s, n).
func firstRunes(s string, n int) string {
	i := 0
	for p := range s {
		if i == n {
			return s[:p]
		}
		i++
	}
	return s
}
