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

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/store"
)

// hinted is a model server's error with a Retry-After hint.
type hinted struct{ wait time.Duration }

func (h hinted) Error() string             { return "503 from the model server" }
func (h hinted) Unwrap() error             { return remoteerr.ErrUnavailable }
func (h hinted) RetryAfter() time.Duration { return h.wait }

// politeAt is the database's time of the politeness answers of the tests.
var politeAt = time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)

// politeWait is the failure of a fetch the fleet-wide politeness told to
// come back after wait.
func politeWait(reason string, wait time.Duration) error {
	return fail(PoliteWait, &PoliteWaitError{Domain: "table.example.org", Reason: reason, At: politeAt, Wait: wait,
		Spacing: 5 * time.Second, Budget: 200})
}

// TestErrorTable runs every kind of failure through the fleet's middleware,
// as River would, and checks the outcome River is told and the target's
// status: the error table (ErrorTable) applied once.
func TestErrorTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nul := &pgconn.PgError{Code: "22021", Message: "invalid byte sequence for encoding \"UTF8\": 0x00"}
	waits := ServerWaits{Max: time.Minute, Snoozes: 3}
	const url = "https://table.example.org/"
	tests := []struct {
		name      string
		failure   Failure // the row it exercises
		err       error   // what the worker returns
		args      string  // "" = a valid target_queue job of the test's task
		attempt   int     // of 8
		snoozes   int
		deaths    int
		meta      string  // more metadata, as `, "key": value`
		want      Outcome // or "" for success
		wait      time.Duration
		targetErr string // substring of the target's failure; "" = target left as it was
	}{
		{name: "success", err: nil, want: ""},
		{name: "args the contract refuses", failure: BadArgs, args: `{"task_id": 1, "target": {"kind": "url", "value": "ftp://x"}}`, want: Cancel},
		{name: "bad input", failure: BadInput, err: fmt.Errorf("store page: %w", errs.ErrBadInput), want: Cancel, targetErr: "store page: invalid input"},
		{name: "missing task", failure: TaskNotFound, err: errs.Task(99, errs.ErrTaskNotFound), want: Cancel},
		{name: "stopped task", failure: TaskStopped, err: errs.Task(1, errs.ErrTaskStopped), want: Cancel},
		{name: "missing page", failure: PageNotFound, err: fmt.Errorf("page 9: %w", errs.ErrPageNotFound), want: Cancel},
		{name: "data Postgres refuses", failure: DataRefused, err: fmt.Errorf("store page: %w", nul), want: Cancel, targetErr: "database refuses"},
		{name: "unfetchable target", failure: TargetFailed, err: &crawl.PermanentError{Reason: crawl.ReasonHTTPStatus, Err: errors.New("404")}, want: Cancel, targetErr: "404"},
		{name: "unreadable page", failure: TargetFailed, err: fail(TargetFailed, errors.New("no main text")), want: Cancel, targetErr: "no main text"},
		{name: "web server busy", failure: ServerBusy, err: &crawl.TransientError{Reason: crawl.ReasonHTTPStatus, Wait: time.Hour}, want: Snooze, wait: time.Minute},
		{name: "web server busy, its waits used up", failure: Transient, err: &crawl.TransientError{Reason: crawl.ReasonHTTPStatus, Wait: time.Hour}, snoozes: 3, want: Retry},
		{name: "search backend busy", failure: ServerBusy, err: &search.StatusError{Status: 429, Wait: 30 * time.Second}, want: Snooze, wait: 30 * time.Second},
		{name: "search backend refuses", failure: TargetFailed, err: fmt.Errorf("search: %w", &search.StatusError{Status: 403}), want: Cancel, targetErr: "HTTP 403"},
		{name: "model server down", failure: ModelUnavailable, err: fmt.Errorf("embed: %w", remoteerr.ErrUnavailable), want: Snooze, wait: modelWaitDefault},
		{name: "model server down, with its hint", failure: ModelUnavailable, err: fmt.Errorf("nli: %w", hinted{42 * time.Second}), want: Snooze, wait: 42 * time.Second},
		{name: "model server down past MaxSnoozes", failure: WaitedTooLong, err: remoteerr.ErrUnavailable, snoozes: errs.MaxSnoozes, want: Retry},
		{name: "worker's own wait past MaxSnoozes, last attempt", failure: WaitedTooLong, err: wait(EmbeddingsPending, time.Minute, errors.New("not embedded")), snoozes: errs.MaxSnoozes, attempt: 8, want: Cancel, targetErr: "still waiting after 100 snoozes"},
		{name: "fragments not embedded yet", failure: EmbeddingsPending, err: wait(EmbeddingsPending, 3*time.Second, errors.New("4 fragments not embedded")), want: Snooze, wait: 3 * time.Second},
		{name: "an older job asks the academic APIs", failure: PeerBusy, err: wait(PeerBusy, 5*time.Second, errors.New("older job")), want: Snooze, wait: 5 * time.Second},
		{name: "academic APIs down, retries left", failure: CitationsDown, err: fail(CitationsDown, remoteerr.ErrUnavailable), attempt: 2, want: Retry},
		{name: "academic APIs down, retries used", failure: CitationsDown, err: fail(CitationsDown, remoteerr.ErrUnavailable), attempt: 3, want: Cancel},
		{name: "worker died three times, alone", failure: WorkerDied, deaths: errs.MaxWorkerDeaths + 1, meta: fmt.Sprintf(`, "worker_deaths_solo": %d`, errs.MaxWorkerDeaths),
			want: Cancel, targetErr: "worker process died in 4 attempts, 3 of them while it ran alone"},
		{name: "worker died three times, not all alone", failure: Transient, deaths: errs.MaxWorkerDeaths + 1, meta: fmt.Sprintf(`, "worker_deaths_solo": %d`, errs.MaxWorkerDeaths-1),
			err: errors.New("connection reset"), want: Retry},
		{name: "worker died twice", failure: Transient, deaths: errs.MaxWorkerDeaths - 1, err: errors.New("connection reset"), want: Retry},
		{name: "network error, attempts left", failure: Transient, err: errors.New("connection reset"), attempt: 3, want: Retry},
		{name: "network error on the last attempt", failure: Transient, err: errors.New("connection reset"), attempt: 8, want: Cancel, targetErr: "giving up after 8 attempts: connection reset"},
		{name: "a claim that kills its worker", failure: ClaimKillsWorker, err: fail(ClaimKillsWorker, errors.New("claim 7 refused")), want: Cancel},
		{name: "not the domain's turn yet", failure: PoliteWait, err: politeWait(store.SlotSpacing, 3*time.Second), want: Snooze, wait: 3 * time.Second},
		{name: "the domain's budget used up", failure: PoliteWait, err: politeWait(store.SlotBudget, 10*time.Hour),
			meta: fmt.Sprintf(`, "polite_waits": 5, "polite_since": %q`, politeAt.Add(-24*time.Hour).Format(time.RFC3339Nano)), want: Snooze, wait: 10 * time.Hour},
		{name: "a politeness wait ending past MaxPoliteWait", failure: PoliteWaitTooLong, err: politeWait(store.SlotBudget, 10*time.Hour),
			meta: fmt.Sprintf(`, "polite_waits": 40, "polite_since": %q`, politeAt.Add(-70*time.Hour).Format(time.RFC3339Nano)), want: Cancel,
			targetErr: "no turn within 72h0m0s of the first politeness wait"},
		{name: "politeness waits are not counted among MaxSnoozes", failure: ModelUnavailable, err: remoteerr.ErrUnavailable,
			snoozes: errs.MaxSnoozes, meta: `, "polite_waits": 1`, want: Snooze, wait: modelWaitDefault},
		{name: "paused task", failure: TaskPaused, err: &PausedError{TaskID: 1, Wait: 5 * time.Second}, want: Snooze, wait: 5 * time.Second},
		{name: "paused task, snoozed past MaxSnoozes while paused", failure: TaskPaused, err: &PausedError{TaskID: 1, Wait: 5 * time.Second},
			snoozes: 5 * errs.MaxSnoozes, meta: fmt.Sprintf(`, "paused_waits": %d`, 5*errs.MaxSnoozes), attempt: 8, want: Snooze, wait: 5 * time.Second},
		{name: "a pause's waits are not counted among MaxSnoozes", failure: ModelUnavailable, err: remoteerr.ErrUnavailable,
			snoozes: errs.MaxSnoozes, meta: `, "paused_waits": 1`, want: Snooze, wait: modelWaitDefault},
		{name: "organization over its share", failure: OverShare, want: Snooze, wait: 2 * time.Second,
			err: fail(OverShare, &ShareError{Organization: "a", Running: 3, Limit: 2, Waiting: "b", Wait: 2 * time.Second})},
		{name: "organization over its share, snoozed past MaxSnoozes for it", failure: OverShare, want: Snooze, wait: 2 * time.Second,
			err:     fail(OverShare, &ShareError{Organization: "a", Running: 3, Limit: 2, Waiting: "b", Wait: 2 * time.Second}),
			snoozes: 2 * errs.MaxSnoozes, meta: fmt.Sprintf(`, "share_waits": %d`, 2*errs.MaxSnoozes), attempt: 8},
		{name: "a share's waits are not counted among MaxSnoozes", failure: ModelUnavailable, err: remoteerr.ErrUnavailable,
			snoozes: errs.MaxSnoozes, meta: `, "share_waits": 1`, want: Snooze, wait: modelWaitDefault},
	}
	covered := map[Failure]bool{}
	for _, tt := range tests {
		covered[tt.failure] = true
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tx := pgtest.Tx(t)
			task := fixture.Task(t, tx, "Failures end as the table says.")
			args := tt.args
			if args == "" {
				args = fmt.Sprintf(`{"task_id": %d, "target": {"kind": "url", "value": %q}}`, task, url)
			}
			row := &rivertype.JobRow{ID: 1, Kind: "target_queue", EncodedArgs: []byte(args), Attempt: max(tt.attempt, 1), MaxAttempts: 8,
				Metadata: fmt.Appendf(nil, `{"snoozes": %d, "worker_deaths": %d%s}`, tt.snoozes, tt.deaths, tt.meta)}
			ran := false
			inner := func(context.Context) error { ran = true; return tt.err }
			got := newOutcomes(store.NewStore(tx), waits, nil, nil).Work(ctx, row, inner)
			var cancel *river.JobCancelError
			var snooze *river.JobSnoozeError
			var outcome Outcome
			switch {
			case got == nil:
			case errors.As(got, &cancel):
				outcome = Cancel
			case errors.As(got, &snooze):
				outcome = Snooze
				if snooze.Duration != tt.wait {
					t.Errorf("snoozed %s, want %s", snooze.Duration, tt.wait)
				}
			default:
				outcome = Retry
			}
			if outcome != tt.want {
				t.Errorf("River is told %v (%s), want %q", got, outcome, tt.want)
			}
			if tt.failure != "" {
				if d := decide(row, tt.err, waits); tt.err != nil && d.Failure != tt.failure && tt.failure != WorkerDied {
					t.Errorf("classified %q, want %q", d.Failure, tt.failure)
				}
			}
			if (diedAlone(row) >= errs.MaxWorkerDeaths || tt.failure == BadArgs) && ran {
				t.Error("the worker ran")
			}
			var status, reason string
			err := tx.QueryRow(ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &reason)
			switch {
			case tt.targetErr == "" && err == nil:
				t.Errorf("target %s (%q), want it untouched", status, reason)
			case tt.targetErr != "" && (err != nil || status != "failed" || !strings.Contains(reason, tt.targetErr)):
				t.Errorf("target %s (%q, %v), want failed with %q", status, reason, err, tt.targetErr)
			}
		})
	}
	// a person's cancel is recorded by the service, never decided here
	// (cmd/enqueue's TestJobCancelRecordsWhoAndWhy)
	covered[errs.CancelledByPerson] = true
	for f := range errs.ErrorTable {
		if !covered[f] {
			t.Errorf("no case of the error table's row %q", f)
		}
	}
}

// TestOtherKindsEndPoisonJobsBeforeTheirWorker: an embed job whose worker
// died under it errs.MaxWorkerDeaths times while it ran alone is cancelled
// before its worker runs; one that died as often, not all of them alone,
// runs, its attempt marked alone for the lifeline to count.
func TestOtherKindsEndPoisonJobsBeforeTheirWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	m := newOutcomes(store.NewStore(tx), ServerWaits{}, nil, nil)
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO river_job (kind, queue, args, state, attempt, max_attempts, priority, metadata)
		VALUES ('embed', 'embed', '{"fragment_ids": [1]}', 'running', 4, 8, 1, '{}') RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	ran := false
	embed := &rivertype.JobRow{ID: id, Kind: "embed", EncodedArgs: []byte(`{"fragment_ids": [1]}`), Attempt: 4, MaxAttempts: 8,
		Metadata: fmt.Appendf(nil, `{"worker_deaths": %d, "worker_deaths_solo": %d}`, errs.MaxWorkerDeaths, errs.MaxWorkerDeaths)}
	var cancel *river.JobCancelError
	if err := m.Work(ctx, embed, func(context.Context) error { ran = true; return nil }); !errors.As(err, &cancel) || ran {
		t.Errorf("a poison embed job: %v (worker ran: %v), want cancelled before the worker", err, ran)
	}
	embed.Metadata = fmt.Appendf(nil, `{"worker_deaths": %d, "worker_deaths_solo": %d}`, errs.MaxWorkerDeaths, errs.MaxWorkerDeaths-1)
	if err := m.Work(ctx, embed, func(context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("with %d deaths alone: %v (ran %v), want the job run", errs.MaxWorkerDeaths-1, err, ran)
	}
	var marked int
	if err := tx.QueryRow(ctx, `SELECT COALESCE((metadata->>'solo_attempt')::int, 0) FROM river_job WHERE id = $1`, id).Scan(&marked); err != nil || marked != 4 {
		t.Errorf("solo_attempt %d (%v), want the attempt (4) marked alone", marked, err)
	}
}

// TestSuspectJobRunsAloneInItsProcess: a job whose worker died under it
// errs.MaxWorkerDeaths times does not start while another job of its
// process runs, whatever their kinds, and no job starts while it runs.
func TestSuspectJobRunsAloneInItsProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newOutcomes(store.NewStore(pgtest.Tx(t)), ServerWaits{}, nil, nil)
	ordinary := &rivertype.JobRow{Kind: "rerank", EncodedArgs: []byte(`{"task_id": 1}`), Attempt: 1, MaxAttempts: 8, Metadata: []byte(`{}`)}
	suspect := &rivertype.JobRow{Kind: "embed", EncodedArgs: []byte(`{"fragment_ids": [1]}`), Attempt: 4, MaxAttempts: 8,
		Metadata: fmt.Appendf(nil, `{"worker_deaths": %d}`, errs.MaxWorkerDeaths)}
	// hold works job until release is closed; it returns once job runs.
	hold := func(job *rivertype.JobRow) (release func(), done <-chan error) {
		started, finish, end := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() { end <- m.Work(ctx, job, func(context.Context) error { close(started); <-finish; return nil }) }()
		<-started
		return func() { close(finish) }, end
	}
	// tryBeside reports whether job starts while another holds its turn:
	// its wait ends with a short context.
	tryBeside := func(job *rivertype.JobRow) bool {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		ran := false
		_ = m.Work(short, job, func(context.Context) error { ran = true; return nil })
		return ran
	}
	release, done := hold(ordinary)
	if tryBeside(suspect) {
		t.Error("the suspect started beside a running job")
	}
	if !tryBeside(ordinary) {
		t.Error("two ordinary jobs did not run side by side")
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	release, done = hold(suspect)
	if tryBeside(ordinary) {
		t.Error("a job started beside the suspect")
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !tryBeside(ordinary) {
		t.Error("no job runs after the suspect ended")
	}
}

// TestDecidePolite: a politeness wait snoozes for the time the database
// gave (at least minPoliteWait), whatever the job's other snoozes, as long
// as it ends within errs.MaxPoliteWait of the job's first politeness wait;
// one that would end later fails the target.
func TestDecidePolite(t *testing.T) {
	t.Parallel()
	since := func(d time.Duration) string {
		return fmt.Sprintf(`{"snoozes": 500, "polite_waits": 500, "polite_since": %q}`, politeAt.Add(-d).Format(time.RFC3339Nano))
	}
	tests := []struct {
		name     string
		metadata string
		reason   string
		wait     time.Duration
		want     Failure
		snooze   time.Duration
	}{
		{name: "the first wait", metadata: `{}`, reason: store.SlotSpacing, wait: 5 * time.Second, want: PoliteWait, snooze: 5 * time.Second},
		{name: "a first wait for the next day", metadata: `{}`, reason: store.SlotBudget, wait: 9 * time.Hour, want: PoliteWait, snooze: 9 * time.Hour},
		{name: "a turn due now", metadata: `{}`, reason: store.SlotSpacing, wait: 0, want: PoliteWait, snooze: minPoliteWait},
		{name: "ending exactly at the bound", metadata: since(errs.MaxPoliteWait - time.Hour), reason: store.SlotBudget, wait: time.Hour,
			want: PoliteWait, snooze: time.Hour},
		{name: "ending past the bound", metadata: since(errs.MaxPoliteWait - time.Hour), reason: store.SlotBudget, wait: time.Hour + time.Nanosecond,
			want: PoliteWaitTooLong},
		{name: "a wait longer than the bound at once", metadata: `{}`, reason: store.SlotSpacing, wait: errs.MaxPoliteWait + time.Second,
			want: PoliteWaitTooLong},
	}
	for _, tt := range tests {
		row := &rivertype.JobRow{Kind: "target_queue", Attempt: 1, MaxAttempts: 8, Metadata: []byte(tt.metadata)}
		d := decide(row, politeWait(tt.reason, tt.wait), ServerWaits{Max: time.Minute, Snoozes: 3})
		if d.Failure != tt.want || (tt.want == PoliteWait && (d.Outcome != Snooze || d.Wait != tt.snooze)) {
			t.Errorf("%s: %s, %s for %s; want %s (%s)", tt.name, d.Failure, d.Outcome, d.Wait, tt.want, tt.snooze)
		}
		if tt.want == PoliteWaitTooLong && (d.Outcome != Cancel || !strings.Contains(d.Err.Error(), "table.example.org")) {
			t.Errorf("%s: %s %v, want cancelled naming the domain", tt.name, d.Outcome, d.Err)
		}
	}
}
