package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// taskEventsCmd lists the recorded decisions of a task's self-directed
// retrieval (internal/planner), one per line with its numbers.
func (a *app) taskEventsCmd() *cobra.Command {
	var taskID int64
	var limit int
	var cursor string
	c := &cobra.Command{
		Use:   "events",
		Short: "The decisions of a task's self-directed retrieval, with their numbers: target_selection, urls_registered, fetches_released, escalation, budget_exhausted, retrieval_done",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			page, err := a.svc.TaskEvents(ctx, a.org, taskID, limit, cursor)
			if err != nil {
				return err
			}
			return a.emit(page, func(w io.Writer) {
				if len(page.Events) == 0 {
					fmt.Fprintln(w, "no retrieval decisions (the task's retrieval is given, or the planner has not run yet)")
				}
				for _, e := range page.Events {
					fmt.Fprintf(w, "%d %s %s %s\n", e.ID, e.At.UTC().Format("15:04:05"), e.Type, e.Payload)
				}
				if page.Next != "" {
					fmt.Fprintf(w, "more: --cursor %s\n", page.Next)
				}
			})
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	c.Flags().IntVar(&limit, "limit", 0, "events per page (default 50, at most 500)")
	c.Flags().StringVar(&cursor, "cursor", "", "the cursor a previous page ended with")
	return c
}
