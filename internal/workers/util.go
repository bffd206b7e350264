package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/store"
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{}`)
	}
	return b
}

// ServerWaits bounds the waits a web server or search backend may ask for
// with Retry-After: one wait is cut to Max, and a job snoozes at most
// Snoozes times; after that the failure counts as an attempt (River's
// backoff), and the last attempt fails the target. Without it a server
// answering 429 with Retry-After: 86400 parks a job for days.
type ServerWaits struct {
	Max     time.Duration
	Snoozes int
}

// snooze returns how long job waits when a server asks for asked, or false
// when the job has used up its snoozes.
func (s ServerWaits) snooze(job *rivertype.JobRow, asked time.Duration) (time.Duration, bool) {
	if snoozeCount(job.Metadata) >= int64(s.Snoozes) {
		return 0, false
	}
	return min(asked, s.Max), true
}

// snoozeCount is how often River has snoozed the job (metadata "snoozes").
func snoozeCount(metadata []byte) int64 {
	var m struct {
		Snoozes int64 `json:"snoozes"`
	}
	_ = json.Unmarshal(metadata, &m)
	return m.Snoozes
}

func isForeignKeyViolation(err error) bool { return store.IsForeignKeyViolation(err) }

// Waits of a job whose model backend is unavailable and gave no hint.
const (
	modelWaitDefault = 10 * time.Second
	modelWaitMax     = 10 * time.Minute
)

// modelWait maps a model backend failure to what the job does next. A backend
// that is unavailable (down, overloaded, circuit open) makes the job snooze:
// snoozes do not use up attempts, so the job waits for the server as long as
// it takes and never fails permanently because of it. The wait is the
// backend's own hint when it gives one (the open circuit breaker's remaining
// cooldown, a long Retry-After), else modelWaitDefault; the breaker makes
// the waiting jobs of a process cost no requests until its cooldown ends.
// Any other error (a garbage answer, a rejected request) is returned wrapped
// with what was being done, so River records it and retries with backoff up
// to the job's max attempts.
func modelWait(err error, doing string) error {
	if errors.Is(err, remoteerr.ErrUnavailable) {
		wait := modelWaitDefault
		if hint, ok := remoteerr.RetryAfter(err); ok {
			wait = min(hint, modelWaitMax)
		}
		return river.JobSnooze(wait)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// completeTx records the job's output (unless nil) and completes the job in
// tx: a job's writes and its completion commit together or not at all.
func completeTx[T river.JobArgs](ctx context.Context, tx pgx.Tx, job *river.Job[T], output any) error {
	if output != nil {
		if err := river.RecordOutput(ctx, output); err != nil {
			return fmt.Errorf("record output: %w", err)
		}
	}
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return fmt.Errorf("complete job: %w", err)
	}
	return nil
}
