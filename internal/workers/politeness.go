package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Fleet-wide politeness (ARCHITECTURE.md §5.5): before a URL target is
// fetched live, its domain's turn is reserved in Postgres for the whole
// fleet (store.ReserveFetchSlot), with the domain policy's spacing (or
// robots.txt's Crawl-delay, when longer) and daily budget. A job that may
// not fetch now snoozes until its turn, or until the next UTC day when the
// budget is used up: it never sleeps in its worker slot, uses no attempt
// and is not counted among errs.MaxSnoozes; a wait that would end more
// than errs.MaxPoliteWait after its first fails the target. A replay
// archive (EVF_REPLAY_DIR) has nobody to be polite to: no turn is taken.

// minPoliteWait is the shortest politeness snooze.
const minPoliteWait = time.Millisecond

// PoliteWaitError is the fleet-wide politeness telling a fetch to come
// back later.
type PoliteWaitError struct {
	Domain  string
	Reason  string        // store.SlotSpacing or store.SlotBudget
	At      time.Time     // the database's time of the answer
	Wait    time.Duration // until the turn promised, or the next UTC midnight
	Spacing time.Duration // the spacing the turn was asked with
	Budget  int           // the domain's budget a UTC day
}

func (e *PoliteWaitError) Error() string {
	if e.Reason == RecheckBudget {
		return fmt.Sprintf("recheck budget: the fleet's %d recheck fetches of the UTC day are used up until %s",
			e.Budget, e.At.Add(e.Wait).UTC().Format(time.RFC3339))
	}
	if e.Reason == store.SlotBudget {
		return fmt.Sprintf("politeness: %s's budget of %d fetches a day is used up until %s",
			e.Domain, e.Budget, e.At.Add(e.Wait).UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("politeness: %s is fetched at most once every %s fleet-wide; its turn is in %s",
		e.Domain, e.Spacing, e.Wait.Round(time.Millisecond))
}

// politeTurn takes the fleet-wide turn of a live fetch of target: nil when
// the fetch may go now, a PoliteWait failure when it must wait, or the
// fetch failure of robots.txt (which a disallowed URL fails before it
// takes a turn).
func (w *TargetQueueWorker) politeTurn(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], target jobs.Target) error {
	turn := fetchTurn{store: w.store, fetcher: w.fetcher, policy: w.pages.Policy, observe: w.observe, logger: w.logger}
	robots, err := turn.take(ctx, job.ID, target.Value)
	if robots != nil {
		return w.fetchFailed(target, pageproc.PageResult{Status: pageproc.StatusFetchFailed, Err: robots})
	}
	return err
}

// fetchTurn is what a live fetch's fleet-wide turn is taken with.
type fetchTurn struct {
	store   *store.Store
	fetcher *crawl.Fetcher
	policy  *domainpolicy.Policy
	observe Observer
	logger  *slog.Logger
}

// take takes the turn of a live fetch of url for the job: robots is the
// fetch failure of robots.txt when it refuses the URL (or could not be
// read), before any turn is taken; else err is nil when the fetch may go
// now, or a PoliteWait failure when it must wait.
func (t fetchTurn) take(ctx context.Context, jobID int64, url string) (robots, err error) {
	if t.fetcher.Replay() {
		return nil, nil
	}
	crawlDelay, err := t.fetcher.CheckRobots(ctx, url)
	if err != nil {
		return err, nil
	}
	domain := ident.Domain(url)
	d := t.policy.Decide(domain)
	req := store.FetchSlotRequest{Domain: domain, Spacing: d.Spacing(crawlDelay), Budget: d.RequestsPerDay,
		URL: url, JobID: jobID}
	slot, err := t.store.ReserveFetchSlot(ctx, req)
	if err != nil {
		return nil, err
	}
	if slot.Granted {
		if slot.UsedUpBudget(req.Budget) {
			t.observe.BudgetExhausted()
			t.logger.InfoContext(ctx, "domain's fetch budget used up for the UTC day", slog.String("domain", domain),
				slog.Int("budget", req.Budget), slog.Int64("job_id", jobID))
		}
		return nil, nil
	}
	t.observe.PoliteWait(slot.Reason)
	return nil, fail(PoliteWait, &PoliteWaitError{Domain: domain, Reason: slot.Reason, At: slot.At, Wait: slot.Wait(),
		Spacing: req.Spacing, Budget: req.Budget})
}

// decidePolite applies the politeness rows of the error table to a
// PoliteWait failure: the job snoozes until its turn or the next UTC day,
// unless that would end more than errs.MaxPoliteWait after its first
// politeness wait (its metadata's polite_since, by the database's clock):
// then the target fails, naming the domain.
func decidePolite(job *rivertype.JobRow, err error) Decision {
	var pw *PoliteWaitError
	if !errors.As(err, &pw) {
		return decided(job, Transient, err, 0) // a PoliteWait failure always carries one
	}
	since := countsOf(job.Metadata).PoliteSince
	if since.IsZero() {
		since = pw.At
	}
	if pw.At.Add(pw.Wait).Sub(since) > errs.MaxPoliteWait {
		return decided(job, PoliteWaitTooLong, fmt.Errorf("not fetched: no turn within %s of the first politeness wait (%s): %w",
			errs.MaxPoliteWait, since.UTC().Format(time.RFC3339), err), 0)
	}
	return decided(job, PoliteWait, err, max(pw.Wait, minPoliteWait))
}

// notePoliteWait records a politeness snooze in the job's metadata: the
// count that MaxSnoozes leaves out (polite_waits), the time of the first
// (polite_since) and the reason of the latest (polite_reason).
func notePoliteWait(ctx context.Context, job *rivertype.JobRow, d Decision) {
	var pw *PoliteWaitError
	if d.Failure != PoliteWait || d.Outcome != Snooze || !errors.As(d.Err, &pw) {
		return
	}
	c := countsOf(job.Metadata)
	_ = river.MetadataSet(ctx, "polite_waits", c.PoliteWaits+1)
	_ = river.MetadataSet(ctx, "polite_reason", pw.Reason)
	if c.PoliteSince.IsZero() {
		_ = river.MetadataSet(ctx, "polite_since", pw.At)
	}
}
