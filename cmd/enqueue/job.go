package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/riverqueue/river"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// jobCmd inserts a job of any kind (its flags on `job` itself, as before
// `job` had sub-commands) and lists, retries and cancels a task's jobs.
func (a *app) jobCmd() *cobra.Command {
	var kind, argsJSON, queue string
	var priority int
	var allowUnserved bool
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Insert a job of any kind (--kind, --args); list, retry and cancel a task's jobs",
		Long: `enqueue job --kind KIND --args JSON inserts a job of any kind, its args
validated exactly as the worker will validate them. A job of a task must
be of a task of your organization, and a job for a queue no worker serves
is refused (a worker reported serving it within the last 15 minutes, and
it is not paused): give --allow-unserved to insert it anyway, e.g. before
starting the workers.

The sub-commands list a task's jobs and retry or cancel one of them.`,
		Example: `  enqueue job --kind rerank --args '{"task_id": 7, "top_k": 20}'
  enqueue job list --task 7 --state discarded
  enqueue job retry --job 123`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind == "" && argsJSON == "" {
				return cmd.Help()
			}
			if kind == "" || argsJSON == "" {
				return usageErr("--kind and --args are required")
			}
			parsed, err := jobs.ParseArgs(kind, []byte(argsJSON))
			if err != nil {
				return &exitError{code: 2, msg: err.Error()}
			}
			if priority < 0 || priority > 4 {
				return usageErr("--priority must be between 1 and 4")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			opts := &river.InsertOpts{Queue: queue, Priority: priority}
			res, err := a.svc.InsertJob(ctx, a.org, parsed, opts, allowUnserved)
			if errors.Is(err, service.ErrQueueUnserved) {
				return fmt.Errorf("%w; start a worker serving it (EVF_QUEUES) or insert the job anyway with --allow-unserved", err)
			}
			if err != nil {
				return err
			}
			out := map[string]any{"job_id": res.Job.ID, "kind": res.Job.Kind, "queue": res.Job.Queue,
				"priority": res.Job.Priority, "duplicate": res.UniqueSkippedAsDuplicate}
			return a.emit(out, func(w io.Writer) {
				if res.UniqueSkippedAsDuplicate {
					fmt.Fprintf(w, "%d (an identical %s job is already queued)\n", res.Job.ID, kind)
					return
				}
				fmt.Fprintln(w, res.Job.ID)
			})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "job kind: target_queue, embed, verify_nli, rerank, citation_graph or cleanup")
	cmd.Flags().StringVar(&argsJSON, "args", "", "job args as a JSON object")
	cmd.Flags().StringVar(&queue, "queue", "", "queue (default: the kind's queue)")
	cmd.Flags().IntVar(&priority, "priority", 0, "priority 1 (first) … 4 (default: the kind's)")
	cmd.Flags().BoolVar(&allowUnserved, "allow-unserved", false, "insert even when no worker serves the job's queue (it waits until one does)")
	cmd.AddCommand(a.jobListCmd(), a.jobActCmd("retry"), a.jobActCmd("cancel"))
	return cmd
}

func (a *app) jobListCmd() *cobra.Command {
	var taskID int64
	var state, cursor string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "A task's jobs, newest first: id, kind, state, attempt, last error, when due; a page at a time (--cursor goes on)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			page, err := a.svc.ListJobs(ctx, a.org, taskID, state, limit, cursor)
			if errors.Is(err, service.ErrBadRequest) {
				return usageErr("%v", err)
			}
			if err != nil {
				return err
			}
			return a.emit(page, func(w io.Writer) { printJobs(w, page) })
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	c.Flags().StringVar(&state, "state", "", "only jobs in this state: "+strings.Join(service.JobStates(), ", "))
	c.Flags().IntVar(&limit, "limit", service.DefaultListLimit, fmt.Sprintf("jobs per page, at most %d", service.MaxListLimit))
	c.Flags().StringVar(&cursor, "cursor", "", "go on from where the previous page ended (its next_cursor)")
	return c
}

func printJobs(w io.Writer, page service.JobPage) {
	if len(page.Jobs) == 0 {
		fmt.Fprintf(w, "task %d: no %sjobs\n", page.TaskID, strings.TrimPrefix(page.State+" ", " "))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tkind\tstate\tattempt\tscheduled\tlast error")
	for _, j := range page.Jobs {
		last := strings.Join(strings.Fields(j.LastError), " ")
		if j.Failure != "" {
			last = j.Failure + ": " + last
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%s\t%s\n", j.ID, j.Kind, j.State, j.Attempt, j.MaxAttempts,
			j.ScheduledAt.UTC().Format(time.RFC3339), truncate(last, 100))
	}
	tw.Flush()
	if page.Next != "" {
		fmt.Fprintf(w, "more: --cursor %s\n", page.Next)
	}
}

// jobActCmd is `job retry` or `job cancel`.
func (a *app) jobActCmd(verb string) *cobra.Command {
	var jobID int64
	var reason, by string
	short := map[string]string{
		"retry":  "Run a job of one of your tasks again now (River's JobRetry): a finished one again, a waiting one at once; a running one is left as it is",
		"cancel": "Cancel a job of one of your tasks (River's JobCancel): a waiting one at once, a running one when its worker sees the request; a finished one is left as it is",
	}[verb]
	c := &cobra.Command{
		Use:   verb,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if jobID <= 0 {
				return usageErr("--job is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			var res service.JobAction
			var err error
			if verb == "cancel" {
				res, err = a.svc.CancelJob(ctx, a.org, service.JobCancel{JobID: jobID, Reason: reason, By: cmp.Or(by, "enqueue")})
			} else {
				res, err = a.svc.RetryJob(ctx, a.org, jobID)
			}
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) { fmt.Fprintln(w, describeAction(verb, res)) })
		},
	}
	c.Flags().Int64Var(&jobID, "job", 0, "job id (required; enqueue job list shows them)")
	if verb == "cancel" {
		c.Flags().StringVar(&reason, "reason", "", "why, recorded in the job's errors and on its target (status shows it)")
		c.Flags().StringVar(&by, "by", "", "who, recorded with the reason (default: enqueue)")
	}
	return c
}

// describeAction says in one line what retry or cancel did to the job.
func describeAction(verb string, r service.JobAction) string {
	j := r.Job
	head := fmt.Sprintf("job %d (%s, task %d)", j.ID, j.Kind, r.TaskID)
	switch {
	case verb == "cancel" && j.State == "running":
		return head + ": running; cancellation requested, it ends cancelled when its worker sees the request"
	case r.Was == j.State && verb == "retry" && j.State == "running":
		return head + ": running; left as it is"
	case r.Was == j.State && verb == "cancel":
		return fmt.Sprintf("%s: already %s; left as it is", head, j.State)
	case r.Was == j.State:
		return fmt.Sprintf("%s: already %s; due now", head, j.State)
	default:
		return fmt.Sprintf("%s: %s → %s", head, r.Was, j.State)
	}
}
