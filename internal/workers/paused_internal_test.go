package workers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestPausedTasksHoldBackTheirJobs runs jobs through the fleet's middleware
// and PausedTasks, as River would: a job of a paused task is snoozed for
// the configured wait without its worker running, whatever its kind; a
// job of an active or stopped task, of no task, or of a missing task runs.
func TestPausedTasksHoldBackTheirJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	task := func(status string) int64 {
		id := fixture.Task(t, tx, "Pausing holds jobs back.")
		if _, err := tx.Exec(ctx, `UPDATE tasks SET status = $2, paused_at = CASE WHEN $2 = 'paused' THEN now() END WHERE id = $1`, id, status); err != nil {
			t.Fatal(err)
		}
		return id
	}
	paused, active, stopped := task("paused"), task("active"), task("stopped")
	const wait = 7 * time.Second
	chain := []rivertype.WorkerMiddleware{newOutcomes(nil, ServerWaits{}, nil, nil), PausedTasks(store.NewStore(tx), wait)}
	for _, tc := range []struct {
		name, kind, args string
		runs             bool
	}{
		{"target_queue of a paused task", "target_queue", fmt.Sprintf(`{"task_id": %d, "target": {"kind": "url", "value": "https://a.example.org/"}}`, paused), false},
		{"verify_nli of a paused task", "verify_nli", fmt.Sprintf(`{"task_id": %d}`, paused), false},
		{"rerank of a paused task", "rerank", fmt.Sprintf(`{"task_id": %d, "query": "ice", "top_k": 5}`, paused), false},
		{"verify_nli of an active task", "verify_nli", fmt.Sprintf(`{"task_id": %d}`, active), true},
		{"verify_nli of a stopped task (it cancels itself)", "verify_nli", fmt.Sprintf(`{"task_id": %d}`, stopped), true},
		{"verify_nli of a missing task (its worker says so)", "verify_nli", fmt.Sprintf(`{"task_id": %d}`, paused+1000), true},
		{"the orphan sweep (no task)", "cleanup", `{"mode": "orphans"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := &rivertype.JobRow{ID: 1, Kind: tc.kind, EncodedArgs: []byte(tc.args), Attempt: 1, MaxAttempts: 1, Metadata: []byte(`{}`)}
			ran := false
			inner := func(context.Context) error { ran = true; return nil }
			for i := len(chain) - 1; i >= 0; i-- {
				m, next := chain[i], inner
				inner = func(ctx context.Context) error { return m.Work(ctx, row, next) }
			}
			err := inner(ctx)
			if ran != tc.runs {
				t.Fatalf("the worker ran: %v, want %v (err %v)", ran, tc.runs, err)
			}
			var snooze *river.JobSnoozeError
			switch {
			case tc.runs && err != nil:
				t.Errorf("River is told %v, want success", err)
			case !tc.runs && (!errors.As(err, &snooze) || snooze.Duration != wait):
				t.Errorf("River is told %v, want a snooze of %s (no attempt used)", err, wait)
			}
		})
	}
}
