package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/jobs"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// taskStatus is the output of `enqueue status`.
type taskStatus struct {
	TaskID   int64                     `json:"task_id"`
	Jobs     map[string]map[string]int `json:"jobs"` // kind → state → count
	Pending  int                       `json:"pending"`
	Finished int                       `json:"finished"`
	Verdicts map[string]int            `json:"claims_by_verdict"`
	Targets  map[string]int            `json:"targets_by_status"`
	Problems []jobProblem              `json:"job_problems"`
	Failed   []failedTarget            `json:"failed_targets"`
	// Blocked are the BLOCKED domains among the task's pages and targets,
	// Flagged those source verification shows to a person.
	Blocked []blockedDomain                `json:"blocked_domains"`
	Flagged []store.FlaggedDomainsAmongRow `json:"flagged_domains"`
	Models  []modelUse                     `json:"models"`           // the models behind the judgements so far
	Notice  string                         `json:"notice,omitempty"` // baseline banner (internal/modelcard)
}

// blockedDomain is a block with its cause and how to undo it.
type blockedDomain struct {
	store.BlockedDomainsAmongRow
	verification.Restore
}

type jobProblem struct {
	ID      int64  `json:"id"`
	Kind    string `json:"kind"`
	State   string `json:"state"`
	Attempt int16  `json:"attempt"`
	Error   string `json:"error"`
	Failure string `json:"failure,omitempty"` // the fleet's reason (errs.ErrorTable), "" when none was recorded
}

// notDone reports whether the job ended without doing its work
// (errs.EndedUndone: a stopped task's jobs and failed targets did theirs).
func (p jobProblem) notDone() bool { return errs.EndedUndone(p.State, errs.Failure(p.Failure)) }

type failedTarget struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Error string `json:"error"`
}

var pendingStates = map[string]bool{"available": true, "pending": true, "running": true, "retryable": true, "scheduled": true}

// notDone lists the task's jobs that ended without doing their work.
func (s *taskStatus) notDone() []jobProblem {
	var out []jobProblem
	for _, p := range s.Problems {
		if p.notDone() {
			out = append(out, p)
		}
	}
	return out
}

func loadStatus(ctx context.Context, st *store.Store, taskID int64) (*taskStatus, error) {
	if _, err := st.ExistingTask(ctx, taskID); err != nil {
		return nil, err
	}
	s := &taskStatus{TaskID: taskID, Jobs: map[string]map[string]int{}, Verdicts: map[string]int{}, Targets: map[string]int{},
		Problems: []jobProblem{}, Failed: []failedTarget{}}
	counts, err := st.TaskJobCounts(ctx, fmt.Sprint(taskID))
	if err != nil {
		return nil, fmt.Errorf("job counts: %w", err)
	}
	for _, c := range counts {
		if s.Jobs[c.Kind] == nil {
			s.Jobs[c.Kind] = map[string]int{}
		}
		s.Jobs[c.Kind][c.State] = int(c.N)
		if pendingStates[c.State] {
			s.Pending += int(c.N)
		} else {
			s.Finished += int(c.N)
		}
	}
	verdicts, err := st.TaskVerdictCounts(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	for _, v := range verdicts {
		s.Verdicts[v.Verdict] = int(v.N)
	}
	targets, err := st.TaskTargetCounts(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("targets: %w", err)
	}
	for _, t := range targets {
		s.Targets[t.Status] = int(t.N)
	}
	problems, err := st.TaskJobProblems(ctx, fmt.Sprint(taskID))
	if err != nil {
		return nil, fmt.Errorf("job problems: %w", err)
	}
	for _, p := range problems {
		s.Problems = append(s.Problems, jobProblem{ID: p.ID, Kind: p.Kind, State: p.State, Attempt: p.Attempt, Error: p.LastError, Failure: p.Failure})
	}
	failed, err := st.TaskFailedTargets(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("failed targets: %w", err)
	}
	for _, f := range failed {
		s.Failed = append(s.Failed, failedTarget{Kind: f.Kind, Value: f.Value, Error: f.Error})
	}
	if s.Blocked, s.Flagged, err = blockedDomains(ctx, st, taskID, failed); err != nil {
		return nil, err
	}
	return s, nil
}

// blockedDomains are the BLOCKED domains among the task's pages and its
// failed URL targets, and the flagged ones.
func blockedDomains(ctx context.Context, st *store.Store, taskID int64, failed []store.TaskFailedTargetsRow) ([]blockedDomain, []store.FlaggedDomainsAmongRow, error) {
	domains, err := st.TaskPageDomains(ctx, taskID)
	if err != nil {
		return nil, nil, fmt.Errorf("task domains: %w", err)
	}
	for _, f := range failed {
		if d := ident.Domain(f.Value); f.Kind == jobs.TargetURL && d != "" {
			domains = append(domains, d)
		}
	}
	rows, err := st.BlockedDomainsAmong(ctx, domains)
	if err != nil {
		return nil, nil, fmt.Errorf("blocked domains: %w", err)
	}
	blocked := make([]blockedDomain, len(rows))
	for i, r := range rows {
		blocked[i] = blockedDomain{BlockedDomainsAmongRow: r, Restore: verification.RestoreFor(r.Domain, r.BlockReason)}
	}
	flagged, err := st.FlaggedDomainsAmong(ctx, domains)
	if err != nil {
		return nil, nil, fmt.Errorf("flagged domains: %w", err)
	}
	if flagged == nil {
		flagged = []store.FlaggedDomainsAmongRow{}
	}
	return blocked, flagged, nil
}

func (s *taskStatus) print(w io.Writer) {
	if s.Notice != "" {
		fmt.Fprintln(w, s.Notice)
	}
	fmt.Fprintf(w, "task %d: %d jobs pending, %d finished\n", s.TaskID, s.Pending, s.Finished)
	kinds := make([]string, 0, len(s.Jobs))
	for k := range s.Jobs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		states := make([]string, 0, len(s.Jobs[k]))
		for st, n := range s.Jobs[k] {
			states = append(states, fmt.Sprintf("%s=%d", st, n))
		}
		sort.Strings(states)
		fmt.Fprintf(w, "  %-14s %s\n", k, strings.Join(states, " "))
	}
	fmt.Fprintf(w, "targets: %s\n", joinCounts(s.Targets))
	fmt.Fprintf(w, "claims by verdict: %s\n", joinCounts(s.Verdicts))
	writeModels(w, s.Models)
	for _, p := range s.Problems {
		reason := ""
		if p.Failure != "" {
			reason = ", " + p.Failure
		}
		fmt.Fprintf(w, "  job %d %s %s (attempt %d%s): %s\n", p.ID, p.Kind, p.State, p.Attempt, reason, p.Error)
	}
	for _, f := range s.Failed {
		fmt.Fprintf(w, "  target failed %s %s: %s\n", f.Kind, f.Value, f.Error)
	}
	for _, d := range s.Blocked {
		since := ""
		if d.BlockedAt != nil {
			since = " since " + d.BlockedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  blocked domain %s%s (%s by %s: %s)%s\n", d.Domain, since, d.BlockReason, d.SetBy, d.Reason, blockCause(d))
		if d.CanRestore {
			fmt.Fprintf(w, "    restore: %s (gives back %s; risk %s: %s)\n", d.Via, d.OriginalTrustLevel, d.Risk, d.RiskReason)
		} else {
			fmt.Fprintf(w, "    cannot be restored here: %s\n", d.Via)
		}
	}
	for _, d := range s.Flagged {
		fmt.Fprintf(w, "  flagged domain %s (%s) for review: %s\n", d.Domain, d.TrustLevel, d.FlagReason)
	}
}

// blockCause names what caused a block: its claims and edges, or a page.
func blockCause(d blockedDomain) string {
	var parts []string
	if len(d.CauseClaimIds) > 0 {
		parts = append(parts, fmt.Sprintf("claims %v", d.CauseClaimIds))
	}
	if len(d.CauseEdgeIds) > 0 {
		parts = append(parts, fmt.Sprintf("edges %v", d.CauseEdgeIds))
	}
	if d.Cause != "" {
		parts = append(parts, d.Cause)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; cause: " + strings.Join(parts, ", ")
}

func joinCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func (a *app) statusCmd() *cobra.Command {
	var taskID int64
	var wait bool
	var timeout, interval time.Duration
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a task's jobs by kind and state and its claims by verdict; --wait blocks with a progress bar until no job is pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			var s *taskStatus
			var err error
			if wait {
				s, err = a.waitForTask(ctx, taskID, timeout, interval)
			} else {
				s, err = loadStatus(ctx, a.store, taskID)
			}
			if err != nil {
				return err
			}
			// The models once, for what is printed (not on every poll of --wait).
			if s.Models, s.Notice, err = loadModels(ctx, a.store, taskID); err != nil {
				return err
			}
			if err := a.emit(s, s.print); err != nil {
				return err
			}
			if nd := s.notDone(); wait && len(nd) > 0 {
				return &exitError{code: 3, msg: fmt.Sprintf("%d jobs of task %d ended without doing their work; the first: job %d %s %s: %s",
					len(nd), taskID, nd[0].ID, nd[0].Kind, nd[0].State, nd[0].Error)}
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until no job of the task is pending (exit 3 if any ended without doing its work: discarded, or cancelled for a reason other than the task being stopped or its target failing)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up waiting after this long (exit 4); 0 waits forever")
	cmd.Flags().DurationVar(&interval, "interval", 500*time.Millisecond, "poll interval while waiting")
	return cmd
}

// waitForTask polls until no job of the task is pending, drawing a progress
// bar of finished jobs over all jobs seen (new follow-up jobs grow the total).
// A task counts as done only when two polls in a row see nothing pending.
func (a *app) waitForTask(ctx context.Context, taskID int64, timeout, interval time.Duration) (*taskStatus, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var bar *progressbar.ProgressBar
	if f, ok := a.errOut.(*os.File); ok && !a.jsonOut && isTerminal(f) {
		bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(a.errOut),
			progressbar.OptionSetDescription(fmt.Sprintf("task %d jobs", taskID)),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	plain := !a.jsonOut && bar == nil // on a pipe: a plain progress line now and then
	var lastLine time.Time
	lastFinished := -1
	quiet := 0
	for {
		s, err := loadStatus(ctx, a.store, taskID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, &exitError{code: 4, msg: fmt.Sprintf("timed out waiting for task %d", taskID)}
			}
			return nil, err
		}
		if bar != nil {
			bar.ChangeMax(s.Pending + s.Finished)
			_ = bar.Set(s.Finished)
		}
		if plain && s.Finished != lastFinished && time.Since(lastLine) >= 2*time.Second {
			fmt.Fprintf(a.errOut, "task %d: %d/%d jobs finished\n", taskID, s.Finished, s.Pending+s.Finished)
			lastLine, lastFinished = time.Now(), s.Finished
		}
		if s.Pending == 0 {
			quiet++
			if quiet >= 2 {
				if bar != nil {
					_ = bar.Finish()
				}
				return s, nil
			}
		} else {
			quiet = 0
		}
		select {
		case <-ctx.Done():
			return nil, &exitError{code: 4, msg: fmt.Sprintf("timed out waiting for task %d (%d jobs pending)", taskID, s.Pending)}
		case <-time.After(interval):
		}
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
