package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// CleanupResult counts the rows a cleanup deleted, by kind (the cleanup
// job's output and its cleanup event).
type CleanupResult struct {
	Mode         string `json:"mode"`
	TaskID       int64  `json:"task_id,omitempty"`
	Edges        int64  `json:"edges"`
	Claims       int64  `json:"claims"`
	Rankings     int64  `json:"rankings"`
	TaskPages    int64  `json:"task_pages"`
	Targets      int64  `json:"targets"`
	Events       int64  `json:"events"`
	OrphanEdges  int64  `json:"orphan_edges"`
	Fragments    int64  `json:"fragments"`
	PageVersions int64  `json:"page_versions"`
	Pages        int64  `json:"pages"`
	Identifiers  int64  `json:"identifiers"`
	// RobotsCaptures: robots.txt captures no page capture needs any more.
	RobotsCaptures int64 `json:"robots_captures"`
	// More says a batch was full: orphans may be left for another sweep.
	More bool `json:"more,omitempty"`
}

// Add counts r's deletions in c too; More is r's.
func (c *CleanupResult) Add(r CleanupResult) {
	c.Edges += r.Edges
	c.Claims += r.Claims
	c.Rankings += r.Rankings
	c.TaskPages += r.TaskPages
	c.Targets += r.Targets
	c.Events += r.Events
	c.OrphanEdges += r.OrphanEdges
	c.Fragments += r.Fragments
	c.PageVersions += r.PageVersions
	c.Pages += r.Pages
	c.Identifiers += r.Identifiers
	c.RobotsCaptures += r.RobotsCaptures
	c.More = r.More
}

// OrphanBatch bounds one sweep: at most this many orphan edges, versions and
// pages are locked and deleted in one transaction.
const OrphanBatch = 1000

// CleanupRequest is one cleanup job: the task-scoped rows of a task (soft),
// the orphans of the graph, or both (hard).
type CleanupRequest struct {
	Mode    string // recorded in the result (soft, hard, orphans)
	TaskID  int64
	Task    bool // stop the task and delete its task-scoped rows
	Orphans bool // then delete what no task reaches
	Batch   int  // rows of each kind one sweep takes at most; 0 means OrphanBatch
	// RobotsKeptSince: with Orphans, robots.txt captures read before it
	// that no page capture needs are deleted too; zero keeps them all. A
	// page fetched under a robots.txt a fetcher still holds may not be
	// written yet, so it lies past the fetchers' crawl.RobotsTTL.
	RobotsKeptSince time.Time
}

// Cleanup is the cleanup job's one write (ARCHITECTURE.md §5.6), in the caller's
// transaction: a crash at any point leaves everything or nothing deleted.
// Lock order: the task row, then orphan versions and pages (SKIP LOCKED).
func (q *Queries) Cleanup(ctx context.Context, r CleanupRequest) (CleanupResult, error) {
	out := CleanupResult{Mode: r.Mode, TaskID: r.TaskID}
	if r.Task {
		if err := q.cleanupTask(ctx, r.TaskID, &out); err != nil {
			return out, err
		}
	}
	if r.Orphans {
		batch := r.Batch
		if batch <= 0 {
			batch = OrphanBatch
		}
		if err := q.cleanupOrphans(ctx, int32(batch), r.RobotsKeptSince, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// cleanupTask is the soft cleanup of one task in the caller's transaction:
// the task is stopped under its lock (its writers check the status under the
// same lock, so nothing is added afterwards), then its task-scoped rows and
// every edge touching its claims are deleted. Nothing shared is touched:
// pages, versions and fragments stay for the other tasks (and for a hard
// cleanup to judge). The task row stays, stopped, with one cleanup event.
func (q *Queries) cleanupTask(ctx context.Context, taskID int64, out *CleanupResult) error {
	if _, err := q.LockExistingTask(ctx, taskID); err != nil {
		return err
	}
	if _, err := q.StopTask(ctx, taskID); err != nil {
		return fmt.Errorf("stop task: %w", err)
	}
	steps := []struct {
		name string
		run  func(context.Context, int64) (int64, error)
		n    *int64
	}{
		{"blocks' causes among the task's claims", q.pruneBlockCauses, new(int64)},
		{"edges of the task's claims", q.DeleteTaskClaimEdges, &out.Edges},
		{"rankings", q.DeleteTaskRankings, &out.Rankings},
		{"claims", q.DeleteTaskClaims, &out.Claims},
		{"task pages", q.DeleteTaskPages, &out.TaskPages},
		{"the task's term index", q.DeleteTaskTerms, new(int64)},
		{"targets", q.DeleteTaskTargets, &out.Targets},
		{"rechecks", q.DeleteTaskSourceChecks, new(int64)},
		{"events", func(ctx context.Context, id int64) (int64, error) { return q.DeleteTaskEvents(ctx, &id) }, &out.Events},
	}
	for _, s := range steps {
		n, err := s.run(ctx, taskID)
		if err != nil {
			return fmt.Errorf("delete %s: %w", s.name, err)
		}
		*s.n += n
	}
	payload, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("cleanup event: %w", err)
	}
	if err := q.InsertEvent(ctx, InsertEventParams{TaskID: &taskID, EventType: "cleanup", Payload: payload}); err != nil {
		return fmt.Errorf("record cleanup event: %w", err)
	}
	return nil
}

// cleanupOrphans deletes, in the caller's transaction, what no task
// reaches: edges whose ends are gone, then page versions outside every task
// with their unreferenced fragments, then pages left without versions,
// tasks, targets, rankings or citations, with their identifiers, and
// (when robotsKeptSince is set) the robots.txt captures read before it that
// no page capture needs (a page's went with its version). Versions and
// pages are locked first (skipping those a writer holds), and every delete
// re-checks reachability in a fresh snapshot, so a task that links a version
// or page meanwhile either keeps it or — if it links after the lock — fails
// its foreign key check and retries; nothing reachable is lost. Each kind
// takes at most batch rows (More is set when one was full), so a sweep
// holds bounded locks for a bounded time.
func (q *Queries) cleanupOrphans(ctx context.Context, batch int32, robotsKeptSince time.Time, out *CleanupResult) error {
	n, err := q.DeleteOrphanEdges(ctx, batch)
	if err != nil {
		return fmt.Errorf("delete orphan edges: %w", err)
	}
	out.OrphanEdges += n
	versions, err := q.LockOrphanVersions(ctx, batch)
	if err != nil {
		return fmt.Errorf("lock orphan page versions: %w", err)
	}
	out.More = out.More || n == int64(batch) || len(versions) == int(batch)
	if len(versions) > 0 {
		if n, err = q.DeleteOrphanFragments(ctx, versions); err != nil {
			return fmt.Errorf("delete orphan fragments: %w", err)
		}
		out.Fragments += n
		if n, err = q.DeleteOrphanVersions(ctx, versions); err != nil {
			return fmt.Errorf("delete orphan page versions: %w", err)
		}
		out.PageVersions += n
	}
	pages, err := q.LockOrphanPages(ctx, batch)
	if err != nil {
		return fmt.Errorf("lock orphan pages: %w", err)
	}
	out.More = out.More || len(pages) == int(batch)
	if len(pages) > 0 {
		if n, err = q.DeletePageIdentifiers(ctx, pages); err != nil {
			return fmt.Errorf("delete identifiers of orphan pages: %w", err)
		}
		out.Identifiers += n
		if n, err = q.DeletePageEdges(ctx, pages); err != nil {
			return fmt.Errorf("delete edges of orphan pages: %w", err)
		}
		out.OrphanEdges += n
		if n, err = q.DeletePages(ctx, pages); err != nil {
			return fmt.Errorf("delete orphan pages: %w", err)
		}
		out.Pages += n
	}
	if robotsKeptSince.IsZero() {
		return nil
	}
	if n, err = q.DeleteUnneededRobotsCaptures(ctx, DeleteUnneededRobotsCapturesParams{KeptSince: robotsKeptSince, Batch: batch}); err != nil {
		return fmt.Errorf("delete unneeded robots.txt captures: %w", err)
	}
	out.RobotsCaptures += n
	out.More = out.More || n == int64(batch)
	return nil
}

// pruneBlockCauses is PruneBlockCauses as a cleanup step.
func (q *Queries) pruneBlockCauses(ctx context.Context, taskID int64) (int64, error) {
	return 0, q.PruneBlockCauses(ctx, taskID)
}
