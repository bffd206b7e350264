package store

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// DefaultSlotHorizon is how far ahead a job told to wait for its domain's
// turn is promised one at most (FetchSlotRequest.Horizon), unless ten
// spacings are longer: waiters past it all come back at the horizon and
// are promised turns again. It also bounds how long the promises of jobs
// that never came back (a stopped task's) delay the next waiter.
const DefaultSlotHorizon = 10 * time.Minute

// The answers of ReserveFetchSlot to a fetch that may not go now.
const (
	SlotSpacing = "spacing" // not the domain's turn yet
	SlotBudget  = "budget"  // the domain's budget of the UTC day is used up
)

// FetchSlotRequest asks the fleet for one fetch of a domain.
type FetchSlotRequest struct {
	Domain  string        // as the domains table keys it (ident.Domain)
	Spacing time.Duration // at least this between two fetches of the domain, fleet-wide
	Budget  int           // fetches of the domain a UTC day; 0: no budget
	Horizon time.Duration // a waiter's turn is promised at most this far ahead; 0: DefaultSlotHorizon or 10 spacings
	URL     string        // logged with a grant
	JobID   int64         // logged with a grant; 0: none
}

// FetchSlot is the fleet's answer, on the database's clock.
type FetchSlot struct {
	Granted bool
	// Reason, when not granted: SlotSpacing or SlotBudget.
	Reason string
	// Until is when to come back: the turn promised (spacing) or the next
	// UTC midnight (budget); At when granted.
	Until time.Time
	At    time.Time // the database's time of the answer
	// DayCount is how many fetches of the domain the fleet granted on the
	// UTC day of At, this one included.
	DayCount int
}

// Wait is how long to wait before asking again: 0 when granted.
func (s FetchSlot) Wait() time.Duration { return max(s.Until.Sub(s.At), 0) }

// UsedUpBudget reports whether this grant took the last fetch of the
// domain's budget for its day.
func (s FetchSlot) UsedUpBudget(budget int) bool {
	return s.Granted && budget > 0 && s.DayCount == budget
}

// ReserveFetchSlot reserves one fetch of a domain for the whole fleet, in
// one statement (FetchSlot, ARCHITECTURE.md §5.5). It runs on the store's
// pool in a transaction of its own, so the grant is visible to every
// process at once; on a Store made from a transaction (tests) the database
// clock stands still for the transaction.
func (q *Queries) ReserveFetchSlot(ctx context.Context, r FetchSlotRequest) (FetchSlot, error) {
	switch {
	case r.Domain == "":
		return FetchSlot{}, fmt.Errorf("reserve a fetch: no domain: %w", errs.ErrBadInput)
	case r.Spacing < 0 || r.Budget < 0 || r.Budget > math.MaxInt32 || r.Horizon < 0:
		return FetchSlot{}, fmt.Errorf("reserve a fetch of %s: spacing %s, budget %d, horizon %s: %w",
			r.Domain, r.Spacing, r.Budget, r.Horizon, errs.ErrBadInput)
	}
	if r.Horizon == 0 {
		r.Horizon = max(DefaultSlotHorizon, 10*r.Spacing)
	}
	var job *int64
	if r.JobID != 0 {
		job = &r.JobID
	}
	row, err := q.FetchSlot(ctx, FetchSlotParams{Domain: r.Domain, SpacingUs: r.Spacing.Microseconds(),
		HorizonUs: r.Horizon.Microseconds(), Budget: int32(r.Budget), Url: r.URL, JobID: job})
	if err != nil {
		return FetchSlot{}, fmt.Errorf("reserve a fetch of %s: %w", r.Domain, err)
	}
	s := FetchSlot{Granted: row.Answer == "granted", Until: row.WaitUntil, At: row.At, DayCount: int(row.DayCount)}
	if !s.Granted {
		s.Reason = row.Answer
	}
	return s, nil
}
