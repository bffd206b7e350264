package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// hostileKinds are the kinds the ingest group runs; a run ends when none of
// them is left to work.
var hostileKinds = []string{jobs.KindTargetQueue, jobs.KindEmbed}

// hostileHypothesis is the task's hypothesis (the demo's).
const hostileHypothesis = "Sea level rise is accelerating."

// stopGrace is how long a worker may take to stop after SIGTERM before it is
// killed: the child waits up to a minute for running jobs, then cancels them
// for up to 10 s.
const stopGrace = 90 * time.Second

// hostileRun works pages with one worker child (env added to the harness's
// environment) in a fresh scratch database, and reports the worker's peak
// RSS and how every page ended.
func (h *harness) hostileRun(ctx context.Context, label string, env []string, pages []HostilePage, hopts HostileOptions) (HostileRun, error) {
	run := HostileRun{Label: label}
	for _, p := range pages {
		run.BodyBytes += int64(len(p.Page.Body))
	}
	pool, dbURL, done, err := h.scratch(ctx)
	if err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	defer done()
	taskID, err := addHostileTask(ctx, pool, pages)
	if err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	p, err := startProc(h.opts.Exe, append([]string{"DATABASE_URL=" + dbURL}, env...), "fleet")
	if err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	w := watchProc(p)
	start := time.Now()
	drained, note, waitErr := w.until(ctx, pool, hopts)
	run.WallSeconds = time.Since(start).Seconds()
	st, end := w.finish(stopGrace)
	if waitErr != nil {
		return run, fmt.Errorf("%s: %w", label, waitErr)
	}
	run.Drained, run.Wait, run.Worker, run.Killed = drained, note, end, w.killed
	run.PeakRSS, run.RusageMaxRSS, run.CPUSeconds = w.peakRSS(), st.MaxRSS, st.CPUSeconds
	if run.Pages, run.Others, err = pageOutcomes(ctx, pool, taskID, pages); err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	if run.Jobs, err = jobStates(ctx, pool); err != nil {
		return run, fmt.Errorf("%s: %w", label, err)
	}
	h.logf("hostile: %s: peak RSS %.0f MiB, %.1f s, worker %s", label, mib(run.PeakRSS), run.WallSeconds, run.Worker)
	return run, nil
}

// addHostileTask creates a task and adds every page as a url target.
func addHostileTask(ctx context.Context, pool *pgxpool.Pool, pages []HostilePage) (int64, error) {
	client, err := insertOnlyClient(pool)
	if err != nil {
		return 0, err
	}
	targets := make([]jobs.Target, len(pages))
	for i, p := range pages {
		if targets[i], err = (jobs.Target{Kind: jobs.TargetURL, Value: p.Page.URL}).Normalized(); err != nil {
			return 0, fmt.Errorf("target %s: %w", p.Name, err)
		}
	}
	var taskID int64
	err = store.NewStore(pool).InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		task, err := intake.CreateTask(ctx, client, tx, "fleetbench", intake.TaskSpec{Hypothesis: hostileHypothesis})
		if err != nil {
			return err
		}
		taskID = task.ID
		_, err = intake.AddTargets(ctx, client, tx, task.ID, targets)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create the hostile task: %w", err)
	}
	return taskID, nil
}

// watchedProc is a worker child that may die, or be killed, before it is
// asked to stop: its output is drained and its exit awaited in the
// background.
type watchedProc struct {
	p       *proc
	exited  chan struct{}
	waitErr error // valid once exited is closed
	killed  bool  // by the harness, at the RSS ceiling
	hwm     int64 // the highest VmHWM read, bytes
}

// readHWM reads the worker's VmHWM, the kernel's high-water mark of its
// resident set since it was exec'd, while it runs. getrusage's ru_maxrss
// of a child is no measure of it: Linux counts in it the resident set of
// the harness the child was forked from (at least its own at the fork),
// which holds every page of the archive.
func (w *watchedProc) readHWM() {
	w.hwm = max(w.hwm, statusBytes(w.p.cmd.Process.Pid, "VmHWM"))
}

// peakRSS is the worker's peak resident set: its last VmHWM read (the
// runs read it every 100 ms and just before the worker is stopped), or
// getrusage's figure where /proc could not be read.
func (w *watchedProc) peakRSS() int64 {
	if w.hwm > 0 {
		return w.hwm
	}
	st, _ := usageOf(w.p.cmd.ProcessState)
	return st.MaxRSS
}

func watchProc(p *proc) *watchedProc {
	w := &watchedProc{p: p, exited: make(chan struct{})}
	go func() {
		for range p.lines { // the child's counters are not needed here
		}
		w.waitErr = p.cmd.Wait()
		close(w.exited)
	}()
	return w
}

// until waits, polling, for the ingest kinds' jobs to drain. It stops
// early, with a note saying why, when the worker exits, passes the RSS
// ceiling (it is then killed) or the timeout passes.
func (w *watchedProc) until(ctx context.Context, pool *pgxpool.Pool, hopts HostileOptions) (drained bool, note string, err error) {
	deadline := time.Now().Add(hopts.Timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, "", ctx.Err()
		case <-w.exited:
			return false, "exited before the queues drained", nil
		case <-tick.C:
		}
		w.readHWM()
		if rss := residentBytes(w.p.cmd.Process.Pid); hopts.RSSCeiling > 0 && rss > hopts.RSSCeiling {
			w.killed = true
			_ = w.p.cmd.Process.Kill()
			return false, fmt.Sprintf("the worker's resident set, %.0f MiB, passed the harness's safety ceiling of %.0f MiB",
				mib(rss), mib(hopts.RSSCeiling)), nil
		}
		var left int
		if err := pool.QueryRow(ctx, `
			SELECT count(*) FROM river_job
			WHERE kind = ANY($1) AND state IN ('available','pending','running','retryable','scheduled')`, hostileKinds).Scan(&left); err != nil {
			return false, "", fmt.Errorf("wait for jobs: %w", err)
		}
		if left == 0 {
			return true, "", nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Sprintf("timed out after %s with %d target_queue/embed jobs unfinished", hopts.Timeout, left), nil
		}
	}
}

// finish stops the worker (SIGTERM, then SIGKILL after grace) unless it
// has exited or was killed, and returns what it used (getrusage, as
// proc.stop) and how it ended: "stopped" when it stopped cleanly when asked.
func (w *watchedProc) finish(grace time.Duration) (procStats, string) {
	end := "stopped"
	select {
	case <-w.exited:
		end = "died: " + exitNote(w.waitErr, w.p.stderr.String())
	default:
		if w.killed {
			<-w.exited
			end = "killed by the harness at the RSS ceiling"
			break
		}
		w.readHWM()
		_ = w.p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.exited:
			if w.waitErr != nil {
				end = "did not stop cleanly: " + exitNote(w.waitErr, w.p.stderr.String())
			}
		case <-time.After(grace):
			_ = w.p.cmd.Process.Kill()
			<-w.exited
			end = fmt.Sprintf("did not stop within %s of SIGTERM: killed", grace)
		}
	}
	if w.killed {
		end = "killed by the harness at the RSS ceiling"
	}
	st, err := usageOf(w.p.cmd.ProcessState)
	if err != nil {
		end += "; " + err.Error()
	}
	return st, end
}

// exitNote is a child's exit error with the last line of its stderr.
func exitNote(err error, stderr string) string {
	msg := "exit status 0"
	if err != nil {
		msg = err.Error()
	}
	if i := strings.LastIndexByte(stderr, '\n'); i >= 0 {
		stderr = stderr[i+1:]
	}
	if stderr != "" {
		msg += ": " + clipLine(stderr, 300)
	}
	return msg
}

// residentBytes is the process's resident set now (/proc/PID/statm), 0
// where that cannot be read.
func residentBytes(pid int) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// statusBytes reads a "kB" field of /proc/PID/status in bytes, 0 where
// it cannot be read.
func statusBytes(pid int, field string) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// pageOutcomes reads how every page's target ended (targets.status, stage,
// error) with its target_queue job's state and attempts, and counts the
// other targets the task holds by kind and status.
func pageOutcomes(ctx context.Context, pool *pgxpool.Pool, taskID int64, pages []HostilePage) ([]HostilePageResult, map[string]int, error) {
	rows, err := pool.Query(ctx, `
		SELECT t.kind, t.value, t.status, t.stage, COALESCE(t.error, ''), COALESCE(j.state::text, ''), COALESCE(j.attempt, 0)
		FROM targets t
		LEFT JOIN river_job j ON j.kind = 'target_queue' AND j.args->>'task_id' = t.task_id::text
		     AND j.args->'target'->>'kind' = t.kind AND j.args->'target'->>'value' = t.value
		WHERE t.task_id = $1`, taskID)
	if err != nil {
		return nil, nil, fmt.Errorf("page outcomes: %w", err)
	}
	type key struct{ kind, value string }
	got := map[key]HostilePageResult{}
	for rows.Next() {
		var k key
		var r HostilePageResult
		if err := rows.Scan(&k.kind, &k.value, &r.Status, &r.Stage, &r.Error, &r.JobState, &r.Attempts); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("page outcomes: %w", err)
		}
		got[k] = r
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("page outcomes: %w", err)
	}
	out := make([]HostilePageResult, len(pages))
	for i, p := range pages {
		t, err := (jobs.Target{Kind: jobs.TargetURL, Value: p.Page.URL}).Normalized()
		if err != nil {
			return nil, nil, fmt.Errorf("page outcomes: %s: %w", p.Name, err)
		}
		r, ok := got[key{t.Kind, t.Value}]
		if !ok {
			r.Status = "missing"
		}
		delete(got, key{t.Kind, t.Value})
		r.Name, r.Shape, r.URL, r.BodyBytes = p.Name, p.Shape, p.Page.URL, len(p.Page.Body)
		r.Hostile = !p.Ordinary
		out[i] = r
	}
	others := map[string]int{}
	for k, r := range got {
		others[k.kind+" "+r.Status]++
	}
	return out, others, nil
}

// jobStates counts the ingest kinds' jobs by kind and state.
func jobStates(ctx context.Context, pool *pgxpool.Pool) (map[string]map[string]int, error) {
	rows, err := pool.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job WHERE kind = ANY($1) GROUP BY 1, 2`, hostileKinds)
	if err != nil {
		return nil, fmt.Errorf("job states: %w", err)
	}
	out := map[string]map[string]int{}
	for rows.Next() {
		var kind, state string
		var n int
		if err := rows.Scan(&kind, &state, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("job states: %w", err)
		}
		if out[kind] == nil {
			out[kind] = map[string]int{}
		}
		out[kind][state] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("job states: %w", err)
	}
	return out, nil
}
