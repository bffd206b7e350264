package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Fair shares between organizations. River takes jobs in their order
// (priority, then due time), whatever organization they work for: one
// organization's task of 20,000 claims would hold every worker of the nli
// queue ahead of another's task of five. Before a job of a task starts,
// FairShares counts, fleet-wide, the running jobs of its kind in its queue
// (River's own rows: a process that dies leaves nothing behind once the
// lifeline or River's rescuer has returned its jobs) and lets it start
// unless both hold:
//
//   - its organization runs more than its share of them, this job included:
//     more than max(1, ⌊share × running⌋), the share being what an operator
//     set for the organization (enqueue org share) or EVF_ORG_SHARE;
//   - another organization has a job of the kind waiting (available and due,
//     of an active task) and runs fewer than its own share.
//
// Then the job returns an over_share failure, which the error table
// snoozes for EVF_ORG_SHARE_SNOOZE: River does not count a snooze as an
// attempt, and the job's metadata counts these apart (share_waits) so that
// errs.MaxSnoozes never counts them. The freed slot takes the next job in
// River's order: the organization's next ones are held back in turn until
// the waiting organization's is reached. An organization alone with work uses every
// worker (nobody waits), and so does one whose competitors are all at their
// own share (no slot is left idle for fairness' sake). A share of 1 turns
// the limit off for that organization; EVF_ORG_SHARE=1 for every
// organization without a share of its own.
//
// Jobs of no task (the orphan sweep, an embed job naming fragments only) and
// of a task that does not exist are not counted and always run: they belong
// to no organization, and their worker decides the rest.
//
// Cost: one query per job of a task (RunningShare: the running rows of the
// queue through River's fetch index, the task and the share by primary
// key), and when the organization is over its share a second one
// (OrganizationsWaiting: one index probe per active task of the other
// organizations). Two processes starting jobs of one organization at the
// same moment may both pass, each counting before the other's job shows:
// the share is then passed by a job or two for the length of those jobs;
// the next start corrects it.

// ShareError is the failure of a job whose organization is over its share
// while Waiting, another organization, waits: it waits Wait and is tried
// again.
type ShareError struct {
	Organization string
	Running      int64 // the organization's running jobs of the kind, this one included
	Limit        int64 // what its share allows now
	Waiting      string
	Wait         time.Duration
}

func (e *ShareError) Error() string {
	return fmt.Sprintf("organization %q runs %d jobs of this kind, over its share of %d, while organization %q waits: the job waits %s and checks again",
		e.Organization, e.Running, e.Limit, e.Waiting, e.Wait)
}

// FairShares is the worker middleware that holds back the jobs of an
// organization over its share (above); the fleet installs it inside
// Middleware's, which applies the error table to what it returns. share is
// the default share, in (0, 1]; wait is the snooze of a job held back.
func FairShares(st *store.Store, share float64, wait time.Duration) rivertype.WorkerMiddleware {
	if !(share > 0 && share <= 1) {
		share = 1 // no share given (config.Load refuses one outside (0, 1])
	}
	return &fairShares{st: st, share: share, wait: wait}
}

type fairShares struct {
	river.MiddlewareDefaults
	st    *store.Store
	share float64
	wait  time.Duration
}

func (m *fairShares) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	task, ok := jobs.TaskOf(job.Kind, job.EncodedArgs)
	if !ok {
		return doInner(ctx)
	}
	over, err := m.overShare(ctx, job, task)
	switch {
	case err != nil:
		return fmt.Errorf("fair share of task %d's %s job: %w", task, job.Kind, err)
	case over != nil:
		return fail(OverShare, over)
	}
	return doInner(ctx)
}

// overShare reports why job, of task, must wait, or nil when it may start.
func (m *fairShares) overShare(ctx context.Context, job *rivertype.JobRow, task int64) (*ShareError, error) {
	me, err := m.st.RunningShare(ctx, store.RunningShareParams{TaskID: task, Queue: job.Queue, Kind: job.Kind})
	switch {
	case store.IsNotFound(err):
		return nil, nil // its worker says so
	case err != nil:
		return nil, err
	}
	// The job itself is running; a row River has not marked running (a
	// test calling the middleware directly) is counted all the same.
	mine, total := me.Mine, me.Total
	if mine < 1 {
		mine, total = mine+1, total+1
	}
	limit := shareLimit(m.shareOf(me.Share), total)
	if mine <= limit {
		return nil, nil
	}
	others, err := m.st.OrganizationsWaiting(ctx, store.OrganizationsWaitingParams{OrganizationID: me.OrganizationID, Queue: job.Queue, Kind: job.Kind})
	if err != nil {
		return nil, err
	}
	for _, o := range others {
		if o.Running < shareLimit(m.shareOf(o.Share), total) {
			return &ShareError{Organization: me.OrganizationID, Running: mine, Limit: limit, Waiting: o.OrganizationID, Wait: m.wait}, nil
		}
	}
	return nil, nil
}

// shareOf is an organization's share: the operator's, or the default.
func (m *fairShares) shareOf(set *float64) float64 {
	if set != nil {
		return *set
	}
	return m.share
}

// shareLimit is how many of running jobs a share allows: at least one, so
// that every organization with work makes progress.
func shareLimit(share float64, running int64) int64 {
	return max(1, int64(share*float64(running)))
}

// noteShareWait counts a fair share's snooze in the job's metadata
// (share_waits), which snoozeCount leaves out.
func noteShareWait(ctx context.Context, job *rivertype.JobRow, d Decision) {
	if d.Failure != OverShare || d.Outcome != Snooze {
		return
	}
	_ = river.MetadataSet(ctx, "share_waits", countsOf(job.Metadata).ShareWaits+1)
}

// shareWait is the wait of an over_share failure (at least 1 ms: a snooze
// of 0 would fetch the job again at once).
func shareWait(err error) time.Duration {
	var se *ShareError
	if errors.As(err, &se) {
		return max(se.Wait, time.Millisecond)
	}
	return time.Millisecond
}
