package workers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestSettle: which errors end a target_queue job for good, failing its
// target with the reason, and which leave it to River's retries.
func TestSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nul := &pgconn.PgError{Code: "22021", Message: "invalid byte sequence for encoding \"UTF8\": 0x00"}
	tooBig := &pgconn.PgError{Code: "54000", Message: "index row size 3104 exceeds btree version 4 maximum 2704"}
	tests := []struct {
		name           string
		err            error
		attempt        int
		wantFailed     string // substring of the target's error; "" = target untouched
		wantCancel     bool
		wantSameReturn bool
	}{
		{"nil", nil, 1, "", false, true},
		{"text Postgres refuses", fmt.Errorf("store page: %w", nul), 1, "database refuses", true, false},
		{"index row too large", tooBig, 1, "database refuses", true, false},
		{"network error, attempts left", errors.New("connection reset"), 3, "", false, true},
		{"network error on the last attempt", errors.New("connection reset"), 8, "giving up after 8 attempts: connection reset", true, false},
		{"snooze", river.JobSnooze(1), 8, "", false, true},
		{"bad input the store refuses", fmt.Errorf("store page: %w", errs.ErrBadInput), 1, "store page: invalid input", true, false},
		{"stopped task: the task's state, not the target's", errs.Task(1, errs.ErrTaskStopped), 1, "", false, true},
		{"waiting past errs.MaxSnoozes on the last attempt", river.JobSnooze(time.Minute), 108, "still waiting after 100 snoozes", true, false},
		{"waiting past errs.MaxSnoozes with attempts left", river.JobSnooze(time.Minute), 107, "", false, false},
		{"a cancel already decided", river.JobCancel(errors.New("decided")), 1, "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tx := pgtest.Tx(t)
			w := &TargetQueueWorker{Store: store.NewStore(tx)}
			task := fixture.Task(t, tx, "Settled targets end once.")
			tgt, err := w.Store.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: task, Kind: jobs.TargetURL, Value: "https://settle.example.org/"})
			if err != nil {
				t.Fatal(err)
			}
			// Attempts past 100 stand for a job that has snoozed 100 times.
			row := &rivertype.JobRow{ID: 1, Attempt: tt.attempt, MaxAttempts: 8}
			if tt.attempt > 100 {
				row.Attempt, row.Metadata = tt.attempt-100, []byte(`{"snoozes": 100}`)
			}
			job := &river.Job[jobs.TargetQueueArgs]{JobRow: row,
				Args: jobs.TargetQueueArgs{TaskID: task, Target: jobs.Target{Kind: jobs.TargetURL, Value: "https://settle.example.org/"}}}
			got := w.settle(ctx, job, tgt.ID, tt.err)
			var cancel *river.JobCancelError
			if errors.As(got, &cancel) != tt.wantCancel {
				t.Errorf("settle(%v) = %v, cancel %v", tt.err, got, tt.wantCancel)
			}
			if tt.wantSameReturn && got != tt.err {
				t.Errorf("settle(%v) = %v, want the error unchanged", tt.err, got)
			}
			var status, reason string
			if err := tx.QueryRow(ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE id = $1`, tgt.ID).Scan(&status, &reason); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantFailed == "" && status != "seen":
				t.Errorf("target %s (%q), want it untouched", status, reason)
			case tt.wantFailed != "" && (status != "failed" || !strings.Contains(reason, tt.wantFailed)):
				t.Errorf("target %s (%q), want failed with %q", status, reason, tt.wantFailed)
			}
		})
	}
}

// TestPoisonJobsEndAfterKillingTheirWorker: a job whose worker process died
// under it errs.MaxWorkerDeaths times is not run again: target_queue fails
// its target with the reason, the other kinds are cancelled by the
// middleware before their worker runs.
func TestPoisonJobsEndAfterKillingTheirWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	died := make([]rivertype.AttemptError, errs.MaxWorkerDeaths)
	for i := range died {
		died[i] = rivertype.AttemptError{Attempt: i + 1, Error: "worker process evf1_x " + errs.WorkerDied + " (its liveness lock was free)"}
	}

	tx := pgtest.Tx(t)
	w := &TargetQueueWorker{Store: store.NewStore(tx)}
	task := fixture.Task(t, tx, "Poison pages end once.")
	args := jobs.TargetQueueArgs{TaskID: task, Target: jobs.Target{Kind: jobs.TargetURL, Value: "https://poison.example.org/"}}
	err := w.Work(ctx, &river.Job[jobs.TargetQueueArgs]{JobRow: &rivertype.JobRow{ID: 1, Kind: jobs.KindTargetQueue,
		Attempt: errs.MaxWorkerDeaths + 1, MaxAttempts: 8, Errors: died}, Args: args})
	var cancel *river.JobCancelError
	if !errors.As(err, &cancel) {
		t.Errorf("Work = %v, want the job cancelled", err)
	}
	var status, reason string
	if err := tx.QueryRow(ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(reason, "worker process died in 3 attempts") {
		t.Errorf("target %s (%q), want failed naming the dead workers", status, reason)
	}

	ran := false
	embed := &rivertype.JobRow{Kind: jobs.KindEmbed, EncodedArgs: []byte(`{"fragment_ids": [1]}`), Attempt: 4, MaxAttempts: 8, Errors: died}
	err = (&permanentErrors{}).Work(ctx, embed, func(context.Context) error { ran = true; return nil })
	if !errors.As(err, &cancel) || ran {
		t.Errorf("middleware on a poison embed job: %v (worker ran: %v), want cancelled before the worker", err, ran)
	}
	embed.Errors = died[:errs.MaxWorkerDeaths-1]
	if err := (&permanentErrors{}).Work(ctx, embed, func(context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("middleware with %d deaths: %v (ran %v), want the job run", errs.MaxWorkerDeaths-1, err, ran)
	}

	// A job that has waited errs.MaxSnoozes times: its next wait is an attempt.
	var snooze *river.JobSnoozeError
	wait := func(context.Context) error { return river.JobSnooze(time.Minute) }
	if err := (&permanentErrors{}).Work(ctx, embed, wait); !errors.As(err, &snooze) {
		t.Errorf("a first wait: %v, want a snooze", err)
	}
	embed.Metadata = []byte(`{"snoozes": 100}`)
	if err := (&permanentErrors{}).Work(ctx, embed, wait); err == nil || errors.As(err, &snooze) || !strings.Contains(err.Error(), "still waiting after 100 snoozes") {
		t.Errorf("the 101st wait: %v, want an error that counts as an attempt", err)
	}
}
