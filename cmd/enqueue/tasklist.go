package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

func (a *app) taskListCmd() *cobra.Command {
	var limit int
	var cursor string
	c := &cobra.Command{
		Use:   "list",
		Short: "Your organization's tasks, newest first: id, status, created, claims, targets, pages, hypothesis; a page at a time (--cursor goes on)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			page, err := a.svc.ListTasks(ctx, a.org, limit, cursor)
			if errors.Is(err, service.ErrBadRequest) {
				return usageErr("%v", err)
			}
			if err != nil {
				return err
			}
			return a.emit(page, func(w io.Writer) { printTasks(w, a.org, page) })
		},
	}
	c.Flags().IntVar(&limit, "limit", service.DefaultListLimit, fmt.Sprintf("tasks per page, at most %d", service.MaxListLimit))
	c.Flags().StringVar(&cursor, "cursor", "", "go on from where the previous page ended (its next_cursor)")
	return c
}

func printTasks(w io.Writer, org string, page service.TaskPage) {
	if len(page.Tasks) == 0 {
		fmt.Fprintf(w, "organization %q has no tasks\n", org)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tstatus\tcreated\tclaims\ttargets\tpages\thypothesis")
	for _, t := range page.Tasks {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", t.ID, t.Status, t.CreatedAt.UTC().Format(time.RFC3339),
			t.Claims, t.Targets, t.Pages, truncate(strings.Join(strings.Fields(t.Hypothesis), " "), 60))
	}
	tw.Flush()
	if page.Next != "" {
		fmt.Fprintf(w, "more: --cursor %s\n", page.Next)
	}
}

func (a *app) taskShowCmd() *cobra.Command {
	var taskID int64
	c := &cobra.Command{
		Use:   "show",
		Short: "One task: hypothesis, organization, status, budget class, when created, claims by verdict, targets by status, pages, jobs by state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			t, err := a.svc.ShowTask(ctx, a.org, taskID)
			if err != nil {
				return err
			}
			return a.emit(t, func(w io.Writer) {
				fmt.Fprintf(w, "task %d: %s\n", t.ID, t.Hypothesis)
				fmt.Fprintf(w, "organization: %s\n", t.OrganizationID)
				switch {
				case t.CompletedAt != nil:
					fmt.Fprintf(w, "status: %s at %s\n", t.Status, t.CompletedAt.UTC().Format(time.RFC3339))
				case t.PausedAt != nil:
					fmt.Fprintf(w, "status: %s since %s (enqueue task resume --task %d)\n", t.Status, t.PausedAt.UTC().Format(time.RFC3339), t.ID)
				default:
					fmt.Fprintf(w, "status: %s\n", t.Status)
				}
				fmt.Fprintf(w, "budget: %s\n", t.Budget)
				fmt.Fprintf(w, "created: %s, last changed %s\n", t.CreatedAt.UTC().Format(time.RFC3339), t.UpdatedAt.UTC().Format(time.RFC3339))
				fmt.Fprintf(w, "claims: %d (%s)\n", t.Claims, joinCounts(t.Verdicts))
				fmt.Fprintf(w, "targets: %d (%s)\n", t.Targets, joinCounts(t.TargetsBy))
				fmt.Fprintf(w, "pages: %d\n", t.Pages)
				fmt.Fprintf(w, "jobs: %d pending (%s)\n", t.Pending, joinCounts(t.Jobs))
			})
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	return c
}
