package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

func printStatus(w io.Writer, s *service.Status) {
	if s.Notice != "" {
		fmt.Fprintln(w, s.Notice)
	}
	state := s.TaskStatus
	switch {
	case s.CompletedAt != nil:
		state += " at " + s.CompletedAt.UTC().Format(time.RFC3339)
	case s.PausedAt != nil:
		state += " since " + s.PausedAt.UTC().Format(time.RFC3339) + " (no job starts until it is resumed)"
	}
	fmt.Fprintf(w, "task %d %s: %d jobs pending, %d finished\n", s.TaskID, state, s.Pending, s.Finished)
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
	writeCosts(w, s.Costs)
	if r := s.Rechecks; r.LastCheckedAt != nil {
		fmt.Fprintf(w, "rechecks: %s (latest %s)\n", r.Summary, r.LastCheckedAt.UTC().Format(time.RFC3339))
	}
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
		scope := ""
		if d.Scope == "organization" {
			scope = " in your organization's view"
		}
		fmt.Fprintf(w, "  blocked domain %s%s since %s (%s by %s: %s)%s\n", d.Domain, scope, d.BlockedAt.UTC().Format(time.RFC3339),
			d.BlockReason, d.SetBy, d.Reason, blockCause(d))
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

// writeCosts prints what the task's jobs spent: one row per stage and the
// total, numbers right-aligned, or a line saying nothing was recorded.
func writeCosts(w io.Writer, c service.Costs) {
	if len(c.Stages) == 0 {
		fmt.Fprintln(w, "costs: none recorded")
		return
	}
	fmt.Fprintln(w, "costs:")
	width := len("total")
	for _, st := range c.Stages {
		width = max(width, len(st.Stage))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Names padded to one width stay left-aligned in a right-aligned table.
	fmt.Fprintf(tw, "  %-*s\tmodel calls\ttokens in\ttokens out\tsearches\tacademic calls\tfetches\tfetched bytes\t\n", width, "stage")
	row := func(name string, c cost.Counts) {
		fmt.Fprintf(tw, "  %-*s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", width, name,
			c.ModelCalls, c.TokensIn, c.TokensOut, c.Searches, c.AcademicCalls, c.Fetches, c.FetchBytes)
	}
	for _, st := range c.Stages {
		row(st.Stage, st.Counts)
	}
	row("total", c.Total)
	_ = tw.Flush()
}

// blockCause names what caused a block: its claims and edges, or a page.
func blockCause(d service.BlockedDomain) string {
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
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			var s *service.Status
			if wait {
				s, err = a.waitForTask(ctx, taskID, timeout, interval)
			} else {
				s, err = a.svc.Status(ctx, a.org, taskID)
			}
			if err != nil {
				return err
			}
			if err := a.emit(s, func(w io.Writer) { printStatus(w, s) }); err != nil {
				return err
			}
			if nd := s.NotDone(); wait && len(nd) > 0 {
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
// The wait ends when the task is completed (no job left to run, recorded by
// the workers' settle sweep) or stopped, with nothing pending.
func (a *app) waitForTask(ctx context.Context, taskID int64, timeout, interval time.Duration) (*service.Status, error) {
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
	for {
		s, err := a.svc.Status(ctx, a.org, taskID)
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
		if s.Pending == 0 && (s.TaskStatus == "completed" || s.TaskStatus == "stopped") {
			if bar != nil {
				_ = bar.Finish()
			}
			return s, nil
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
