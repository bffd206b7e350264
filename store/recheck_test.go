package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestStartDueRechecks: the sweep starts a round of a task whose interval
// (its own, else the default) has passed since its latest round or its
// creation, and of no task that is too old, stopped, set to never, or
// without a citation; a started round is not started again until its
// interval passes anew.
func TestStartDueRechecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	task := func(name, set string, cited bool) int64 {
		t.Helper()
		id := fixture.Task(t, tx, name)
		if cited {
			p := fixture.PageOf(t, tx, id, "https://example.org/"+name, "Glaciers lost 3 percent of their ice in 2022.")
			fixture.ExtractedClaim(t, tx, id, p, 0, "Glaciers lost 3 percent of their ice in 2022.")
		}
		if _, err := tx.Exec(ctx, "UPDATE tasks SET "+set+" WHERE id = $1", id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	due := task("due", "created_at = now() - interval '8 days'", true)
	fresh := task("fresh", "created_at = now() - interval '2 days'", true)
	task("old", "created_at = now() - interval '100 days'", true)
	task("never", "created_at = now() - interval '8 days', recheck_every = interval '0'", true)
	own := task("own", "created_at = now() - interval '3 days', recheck_every = interval '1 day', rechecked_at = now() - interval '25 hours'", true)
	task("stopped", "created_at = now() - interval '8 days', status = 'stopped'", true)
	task("uncited", "created_at = now() - interval '8 days'", false)
	week := pgtype.Interval{Microseconds: (168 * time.Hour).Microseconds(), Valid: true}
	p := store.StartDueRechecksParams{MaxAge: pgtype.Interval{Microseconds: (90 * 24 * time.Hour).Microseconds(), Valid: true},
		DefaultEvery: week, MaxRows: 100}
	got, err := q.StartDueRechecks(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []int64{due, own}; !slices.Equal(got, want) {
		t.Errorf("rounds started for %v, want %v (due by the default interval, due by its own)", got, want)
	}
	if again, err := q.StartDueRechecks(ctx, p); err != nil || len(again) != 0 {
		t.Errorf("a second sweep started %v (%v), want none", again, err)
	}
	// With a default of a day, the fresh task is due too.
	p.DefaultEvery = pgtype.Interval{Microseconds: (24 * time.Hour).Microseconds(), Valid: true}
	if got, err := q.StartDueRechecks(ctx, p); err != nil || !slices.Equal(got, []int64{fresh}) {
		t.Errorf("with a daily default the sweep started %v (%v), want [%d]", got, err, fresh)
	}
}
