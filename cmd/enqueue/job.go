package main

import (
	"fmt"
	"io"

	"github.com/riverqueue/river"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/jobs"
)

func (a *app) jobCmd() *cobra.Command {
	var kind, argsJSON, queue string
	var priority int
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Insert a job of any kind; its args are validated exactly as the worker will",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			res, err := a.svc.InsertJob(ctx, a.org, parsed, opts, false)
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
	return cmd
}
