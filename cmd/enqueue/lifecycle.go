package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// lifecycleCmds are `task pause`, `task resume` and `task budget`
// (service.PauseTask, ResumeTask, SetBudget).
func (a *app) lifecycleCmds() []*cobra.Command {
	return []*cobra.Command{
		a.lifecycleCmd("pause", "Pause a task: no job of it starts until it is resumed (running jobs finish; waiting ones use no attempt); new work is recorded and waits",
			func(cmd *cobra.Command, taskID int64) (service.Lifecycle, error) {
				return a.svc.PauseTask(cmd.Context(), a.org, taskID)
			}),
		a.lifecycleCmd("resume", "Resume a paused task: its jobs start again (within EVF_PAUSED_SNOOZE) and no judged pair is judged again; it is completed when no work remains",
			func(cmd *cobra.Command, taskID int64) (service.Lifecycle, error) {
				return a.svc.ResumeTask(cmd.Context(), a.org, taskID)
			}),
		a.taskBudgetCmd(),
		a.taskRecheckCmd(),
	}
}

// taskRecheckCmd starts a recheck round of a task's cited sources now, and
// sets how often it comes back (service.RecheckTask).
func (a *app) taskRecheckCmd() *cobra.Command {
	var taskID int64
	var every time.Duration
	var never, byDefault, now bool
	c := &cobra.Command{
		Use:   "recheck",
		Short: "Fetch the pages a task cites again now and check each cited span (unchanged, edited, moved, gone, unreachable); --every, --never or --default set how often it is done on schedule instead",
		Long: "Starts a recheck round of the task: each page its evidence cites is fetched again, politely and within the fleet's " +
			"daily recheck budget, and every span the task cites in it is classified; a page that changed is kept as a new " +
			"version and nothing cited is replaced. `enqueue status` summarises the rechecks, `enqueue evidence` gives each " +
			"quote's latest one. --every D sets the task's interval between rounds (the fleet's EVF_RECHECK_INTERVAL otherwise), " +
			"--never stops the schedule, --default returns to the fleet's interval; with one of them no round starts now unless --now is given.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.forTask(cmd, taskID); err != nil {
				return err
			}
			var set *time.Duration
			n := 0
			if cmd.Flags().Changed("every") {
				if every < time.Hour {
					return usageErr("--every %s: want at least 1h", every)
				}
				set, n = &every, n+1
			}
			if never {
				zero := time.Duration(0)
				set, n = &zero, n+1
			}
			if byDefault {
				back := time.Duration(-1)
				set, n = &back, n+1
			}
			if n > 1 {
				return usageErr("give at most one of --every, --never and --default")
			}
			res, err := a.svc.RecheckTask(cmd.Context(), a.org, taskID, set, now || set == nil)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) {
				state := "not started now"
				switch {
				case res.Waiting:
					state = "already waiting (job " + fmt.Sprint(res.JobID) + ")"
				case res.JobID != 0:
					state = "started (job " + fmt.Sprint(res.JobID) + ")"
				}
				fmt.Fprintf(w, "task %d recheck %s; schedule: %s\n", res.TaskID, state, res.Schedule)
			})
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	c.Flags().DurationVar(&every, "every", 0, "recheck the task on schedule this often (at least 1h)")
	c.Flags().BoolVar(&never, "never", false, "recheck the task only when asked")
	c.Flags().BoolVar(&byDefault, "default", false, "recheck the task at the fleet's interval (EVF_RECHECK_INTERVAL)")
	c.Flags().BoolVar(&now, "now", false, "with --every, --never or --default: start a round now too")
	return c
}

// lifecycleCmd is a command that changes one task's lifecycle with do.
func (a *app) lifecycleCmd(use, short string, do func(cmd *cobra.Command, taskID int64) (service.Lifecycle, error)) *cobra.Command {
	var taskID int64
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.forTask(cmd, taskID); err != nil {
				return err
			}
			res, err := do(cmd, taskID)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) { printLifecycle(w, res) })
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	return c
}

// taskBudgetCmd changes a paused task's budget class.
func (a *app) taskBudgetCmd() *cobra.Command {
	var budget string
	c := a.lifecycleCmd("budget", "Change a paused task's budget class ("+strings.Join(intake.BudgetClasses, ", ")+"); refused unless the task is paused",
		func(cmd *cobra.Command, taskID int64) (service.Lifecycle, error) {
			return a.svc.SetBudget(cmd.Context(), a.org, taskID, budget)
		})
	pre := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if budget == "" {
			return usageErr("--budget is required: one of %s", strings.Join(intake.BudgetClasses, ", "))
		}
		return pre(cmd, args)
	}
	c.Flags().StringVar(&budget, "budget", "", "the new budget class: "+strings.Join(intake.BudgetClasses, ", ")+" (required)")
	return c
}

// printLifecycle is the text output of pause, resume and budget.
func printLifecycle(w io.Writer, l service.Lifecycle) {
	state := l.Status
	if l.PausedAt != nil {
		state += " since " + l.PausedAt.UTC().Format(time.RFC3339)
	}
	note := ""
	if !l.Changed {
		note = " (unchanged)"
	}
	fmt.Fprintf(w, "task %d %s, budget %s%s\n", l.TaskID, state, l.Budget, note)
}
