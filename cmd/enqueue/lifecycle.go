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
	}
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
