package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/store"
)

// feedbackCmd is a reviewer's word on claims, every use audited.
func (a *app) feedbackCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "feedback", Short: "A reviewer's correction of claims (every use audited)"}
	cmd.AddCommand(a.claimFeedbackCmd("claim-reject", "Reject a claim: it stays in the graph, rejected and not adopted, whatever its edges say", true),
		a.claimFeedbackCmd("claim-restore", "Restore a rejected claim: its edges decide its verification again", false))
	return cmd
}

func (a *app) claimFeedbackCmd(use, short string, reject bool) *cobra.Command {
	var claimID int64
	var reason, by string
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if claimID <= 0 {
				return usageErr("--claim is required: the claim's id (enqueue graph lists them)")
			}
			if reason == "" {
				return usageErr("--reason is required: every use is recorded with why")
			}
			if by == "" {
				return usageErr("--by is required: every use is recorded with who")
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			res, err := a.store.ApplyClaimFeedback(cmd.Context(), store.ClaimVerdictFeedback{ClaimID: claimID, Reject: reject, Reason: reason, By: by})
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) {
				if !res.Changed {
					fmt.Fprintf(w, "claim %d: already %s, nothing changed\n", res.ClaimID, res.Verification)
					return
				}
				fmt.Fprintf(w, "claim %d: %s\n", res.ClaimID, res.Verification)
			})
		},
	}
	c.Flags().Int64Var(&claimID, "claim", 0, "the claim's id (required)")
	reviewerFlags(c, &reason, &by)
	return c
}
