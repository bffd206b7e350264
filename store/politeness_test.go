package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestReserveFetchSlotAnswers walks the reservation through its answers
// inside one transaction, where the database's clock stands still, so every
// time is exact: a grant, waiters promised turns one spacing apart (at most
// the horizon ahead), another domain not held back, a budget that stops
// the fetch after the last and resets on a new UTC day, the log of grants
// and its pruning.
func TestReserveFetchSlotAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	reserve := func(r store.FetchSlotRequest) store.FetchSlot {
		t.Helper()
		s, err := q.ReserveFetchSlot(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const spacing = 5 * time.Second
	a := store.FetchSlotRequest{Domain: "a.example", Spacing: spacing, Budget: 100, Horizon: 2 * spacing, URL: "https://a.example/1", JobID: 7}
	first := reserve(a)
	if !first.Granted || first.DayCount != 1 || first.Wait() != 0 {
		t.Fatalf("first reservation: %+v, want granted, the day's first", first)
	}
	now := first.At
	for i, want := range []time.Duration{spacing, 2 * spacing, 2 * spacing} { // the third waiter meets the horizon
		s := reserve(a)
		if s.Granted || s.Reason != store.SlotSpacing || s.Wait() != want || !s.At.Equal(now) {
			t.Errorf("waiter %d: %+v (wait %s), want told to come back in %s", i+1, s, s.Wait(), want)
		}
	}
	if s := reserve(store.FetchSlotRequest{Domain: "b.example", Spacing: spacing, Budget: 100}); !s.Granted {
		t.Errorf("another domain waits behind a.example: %+v", s)
	}

	// A budget of 3 a day, no spacing.
	c := store.FetchSlotRequest{Domain: "c.example", Budget: 3, URL: "https://c.example/", JobID: 9}
	if _, err := tx.Exec(ctx, `INSERT INTO domain_fetches (domain, granted_at, url) VALUES ('c.example', now() - interval '3 days', 'old')`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		s := reserve(c)
		if !s.Granted || s.DayCount != i || s.UsedUpBudget(c.Budget) != (i == 3) {
			t.Errorf("budget fetch %d: %+v, want granted as the day's fetch %d", i, s, i)
		}
	}
	midnight := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if s := reserve(c); s.Granted || s.Reason != store.SlotBudget || !s.Until.Equal(midnight) || s.DayCount != 3 {
		t.Errorf("the fourth fetch of a budget of 3: %+v, want told to come back at %s", s, midnight)
	}
	if _, err := tx.Exec(ctx, `UPDATE domain_politeness SET day = day - 1 WHERE domain = 'c.example'`); err != nil {
		t.Fatal(err)
	}
	if s := reserve(c); !s.Granted || s.DayCount != 1 {
		t.Errorf("on a new UTC day: %+v, want granted as the day's first", s)
	}

	log, err := q.DomainFetchTimes(ctx, "c.example")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 4 {
		t.Fatalf("c.example's log: %d grants, want 4 (and the row of 3 days ago pruned): %+v", len(log), log)
	}
	for _, g := range log {
		if !g.GrantedAt.Equal(now) || g.Url != c.URL || g.JobID == nil || *g.JobID != c.JobID {
			t.Errorf("logged grant %+v, want at %s by job %d", g, now, c.JobID)
		}
	}
	if log, _ := q.DomainFetchTimes(ctx, "a.example"); len(log) != 1 {
		t.Errorf("a.example's log: %d grants, want 1", len(log))
	}

	for _, bad := range []store.FetchSlotRequest{{}, {Domain: "d.example", Spacing: -time.Second}, {Domain: "d.example", Budget: -1}} {
		if _, err := q.ReserveFetchSlot(ctx, bad); !errors.Is(err, errs.ErrBadInput) {
			t.Errorf("%+v: %v, want ErrBadInput", bad, err)
		}
	}
}

// TestReserveFetchSlotAcrossConnections: reservers on several connections
// ask for one domain at once, each coming back when told to, until the
// budget stops them. The grants are at least the spacing apart by the
// database's clock (by construction: every grant decides on the row the
// one before left), and the budget grants exactly its number.
func TestReserveFetchSlotAcrossConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	q := store.New(pool)
	const (
		reservers = 6
		spacing   = 20 * time.Millisecond
		budget    = 25
	)
	req := store.FetchSlotRequest{Domain: "busy.example", Spacing: spacing, Budget: budget, URL: "https://busy.example/"}
	var mu sync.Mutex
	var grants []time.Time
	by := map[int]int{}
	var wg sync.WaitGroup
	errc := make(chan error, reservers)
	for i := range reservers {
		wg.Go(func() {
			for {
				s, err := q.ReserveFetchSlot(ctx, req)
				switch {
				case err != nil:
					errc <- err
					return
				case s.Granted:
					mu.Lock()
					grants = append(grants, s.At)
					by[i]++
					mu.Unlock()
				case s.Reason == store.SlotBudget:
					return
				default:
					time.Sleep(s.Wait())
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if len(grants) != budget {
		t.Fatalf("%d grants, want the budget of %d", len(grants), budget)
	}
	slices.SortFunc(grants, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(grants); i++ {
		if gap := grants[i].Sub(grants[i-1]); gap < spacing {
			t.Errorf("grants %d and %d are %s apart, less than the spacing %s", i-1, i, gap, spacing)
		}
	}
	log, err := q.DomainFetchTimes(ctx, req.Domain)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != budget {
		t.Errorf("%d grants logged, want %d", len(log), budget)
	}
	for i := range min(len(log), len(grants)) {
		if !log[i].GrantedAt.Equal(grants[i]) {
			t.Errorf("logged grant %d at %s, answered %s", i, log[i].GrantedAt, grants[i])
		}
	}
	t.Logf("grants per reserver: %v", by)
}
