package main

import (
	"fmt"
	"io"
	"os"
	"os/user"

	"github.com/spf13/cobra"
)

// claimLinkReviewCmds are `claim link accept` and `claim link reject`: the
// review of the links the LLM proposed when it split a task's hypothesis
// (ARCHITECTURE.md §5.8).
func (a *app) claimLinkReviewCmds() []*cobra.Command {
	who := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	review := func(use, short string, run func(cmd *cobra.Command, taskID int64, from, to, by string) error) *cobra.Command {
		var taskID int64
		var from, to, by string
		cmd := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if taskID <= 0 || from == "" || to == "" {
					return usageErr("--task, --from and --to are required")
				}
				return run(cmd, taskID, from, to, by)
			},
		}
		cmd.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
		cmd.Flags().StringVar(&from, "from", "", "the proposal's dependent claim, E1 for a split of the hypothesis (required)")
		cmd.Flags().StringVar(&to, "to", "", "the E-number of the claim it depends on (required)")
		cmd.Flags().StringVar(&by, "by", who, "who reviews it (recorded in the task's events)")
		return cmd
	}
	accept := review("accept", "Accept a proposed claim link (enqueue claim links shows them): it propagates from now on, recomputed at once",
		func(cmd *cobra.Command, taskID int64, from, to, by string) error {
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			l, err := a.svc.AcceptClaimLink(ctx, a.org, taskID, from, to, by)
			if err != nil {
				return err
			}
			return a.emit(l, func(w io.Writer) { writeLink(w, l) })
		})
	reject := review("reject", "Reject a proposed claim link: it is deleted (it never propagated)",
		func(cmd *cobra.Command, taskID int64, from, to, by string) error {
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			if err := a.svc.RejectClaimLink(ctx, a.org, taskID, from, to, by); err != nil {
				return err
			}
			res := struct {
				From     string `json:"from"`
				To       string `json:"to"`
				Rejected bool   `json:"rejected"`
			}{from, to, true}
			return a.emit(res, func(w io.Writer) { fmt.Fprintf(w, "rejected the proposal %s → %s\n", from, to) })
		})
	return []*cobra.Command{accept, reject}
}
