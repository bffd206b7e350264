package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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

func isForeignKeyViolation(err error) bool { return store.IsForeignKeyViolation(err) }

// modelErr says what was being done when a model backend failed. The error
// table decides what follows: a backend that is unavailable (down,
// overloaded, circuit open) makes the job snooze — snoozes use no attempts,
// so the job waits for the server as long as it takes, for the backend's own
// hint when it gives one (the open breaker's remaining cooldown, a long
// Retry-After); any other error (a garbage answer, a rejected request) is
// retried with backoff up to the job's max attempts.
func modelErr(err error, doing string) error { return fmt.Errorf("%s: %w", doing, err) }

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

// jobCounts are the counts a job's metadata keeps: River's snoozes, the
// lifeline's deaths of its worker (all, and those during attempts the job
// ran alone in its process), target_queue's politeness
// waits with the time of the first (notePoliteWait), the waits of a
// paused task (notePausedWait) and those of an organization over its share
// (noteShareWait).
type jobCounts struct {
	Snoozes          int64     `json:"snoozes"`
	WorkerDeaths     int       `json:"worker_deaths"`
	WorkerDeathsSolo int       `json:"worker_deaths_solo"`
	PoliteWaits      int64     `json:"polite_waits"`
	PoliteSince      time.Time `json:"polite_since"`
	PausedWaits      int64     `json:"paused_waits"`
	ShareWaits       int64     `json:"share_waits"`
}

func countsOf(metadata []byte) jobCounts {
	var c jobCounts
	_ = json.Unmarshal(metadata, &c)
	return c
}

// workerDeaths counts the attempts of job whose worker process died under it.
func workerDeaths(job *rivertype.JobRow) int { return countsOf(job.Metadata).WorkerDeaths }

// diedAlone counts those of them the job ran alone in its process (outcomes.admit).
func diedAlone(job *rivertype.JobRow) int { return countsOf(job.Metadata).WorkerDeathsSolo }

// snoozeCount is how often River has snoozed the job for anything but
// politeness, whose waits have their own bound (errs.MaxPoliteWait), its
// task's pauses, which have none (a person resumes the task), and its
// organization's fair share, which ends with the other organizations' work.
func snoozeCount(metadata []byte) int64 {
	c := countsOf(metadata)
	return c.Snoozes - c.PoliteWaits - c.PausedWaits - c.ShareWaits
}

// checkVectors rejects an embedder answer with the wrong number of vectors,
// a wrong dimension or non-finite values.
func checkVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("%w: %d vectors for %d texts", remoteerr.ErrBadResponse, len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("%w: vector %d has dimension %d, want %d", remoteerr.ErrBadResponse, i, len(v), dim)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d holds %v", remoteerr.ErrBadResponse, i, x)
			}
		}
	}
	return nil
}
