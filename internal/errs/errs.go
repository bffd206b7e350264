// Package errs is the fleet's one vocabulary of problems, in the manner of
// pkgsite's derrors: sentinel errors that callers wrap with %w, the error
// table (table.go: every kind of job failure and what River does with it,
// applied by the worker middleware, internal/workers) and ExitCode for the
// enqueue CLI. It imports the standard library only.
package errs

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels. Wrap them; compare with errors.Is. Those of a job's failure
// name their row of the error table (KindOf).
var (
	// ErrTaskNotFound: no task has this id (never created, or deleted).
	ErrTaskNotFound = Sentinel("task does not exist", TaskNotFound)
	// ErrTaskStopped: the task was stopped (enqueue task stop, cleanup); it
	// takes no new work and its waiting jobs end.
	ErrTaskStopped = Sentinel("task is stopped", TaskStopped)
	// ErrTaskPaused: the task is paused (enqueue task pause); its jobs wait,
	// using no attempt, until it is resumed. Not permanent.
	ErrTaskPaused = Sentinel("task is paused", TaskPaused)
	// ErrPageNotFound: no page has this id (or, to an organization, no
	// task of its reaches the page).
	ErrPageNotFound = Sentinel("page does not exist", PageNotFound)
	// ErrClaimNotFound: no claim has this id.
	ErrClaimNotFound = errors.New("claim does not exist")
	// ErrEdgeNotFound: no NLI edge has this id (a reviewer's correction
	// names an edge that is missing, not an NLI edge, or not theirs).
	ErrEdgeNotFound = errors.New("no NLI edge has this id")
	// ErrBadInput: input that can never succeed as given (job args, a
	// target, a flag value); the error text names the field.
	ErrBadInput = Sentinel("invalid input", BadInput)
)

// TaskError is a problem with one task: "task 7 does not exist".
type TaskError struct {
	ID  int64
	Err error // ErrTaskNotFound, ErrTaskStopped or ErrTaskPaused
}

// Task returns the problem kind (ErrTaskNotFound, ErrTaskStopped,
// ErrTaskPaused) about task id.
func Task(id int64, kind error) error { return &TaskError{ID: id, Err: kind} }

func (e *TaskError) Error() string {
	return fmt.Sprintf("task %d %s", e.ID, strings.TrimPrefix(e.Err.Error(), "task "))
}

func (e *TaskError) Unwrap() error { return e.Err }

// Failure is the row of the task's problem.
func (e *TaskError) Failure() Failure { return KindOf(e.Err) }

// DataRefused reports whether err is, or wraps, Postgres refusing the data
// itself: SQLSTATE class 22, data exception (a NUL or an invalid byte
// sequence in text, a value out of range, …), or class 54, program limit
// exceeded (a tsvector over 1 MB, an index row too large). The same data
// fails the same way on every retry. Any driver error with a SQLState
// method is read (pgx's *pgconn.PgError has one), so this package needs no
// driver.
func DataRefused(err error) bool {
	var pg interface{ SQLState() string }
	if !errors.As(err, &pg) {
		return false
	}
	code := pg.SQLState()
	return strings.HasPrefix(code, "22") || strings.HasPrefix(code, "54")
}

// Exit codes of the enqueue CLI.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command could not do its work (a missing or stopped task, a database error)
	ExitUsage   = 2 // the command line or its input is wrong
)

// ExitCode maps err to the CLI's exit code: bad input is a usage error,
// anything else a failure.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrBadInput):
		return ExitUsage
	default:
		return ExitFailure
	}
}

// WorkerDied is written into a job's recorded errors for an attempt whose
// worker process died under it (the fleet's lifeline rescue).
const WorkerDied = "died while running this job"

// MaxWorkerDeaths is how many attempts of a job may end with their worker
// process dead: a job that kills its worker (a page that exhausts memory)
// is then not run again, instead of killing workers for ever.
const MaxWorkerDeaths = 3

// MaxSnoozes bounds how often one job waits in all (for a model server, a
// busy web server, embeddings): past it a wait counts as a failed attempt,
// so a server that is never ready cannot park a job for ever.
const MaxSnoozes = 100

// MaxPoliteWait bounds how long a target_queue job waits for its domain's
// fleet-wide politeness (its turn, or the next UTC day's budget), counted
// from its first such wait: a wait that would end later fails its target
// instead, naming the domain. Politeness waits use no attempt and are not
// counted among MaxSnoozes.
const MaxPoliteWait = 72 * time.Hour
