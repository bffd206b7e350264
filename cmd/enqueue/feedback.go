package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// feedbackCmd is a reviewer's word on claims, every use audited.
func (a *app) feedbackCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "feedback", Short: "A reviewer's correction of claims (every use audited)"}
	cmd.AddCommand(a.claimFeedbackCmd("claim-reject", "Reject a claim: it stays in the graph, rejected and not adopted, whatever its edges say", true),
		a.claimFeedbackCmd("claim-restore", "Restore a rejected claim: its edges decide its verification again", false),
		a.edgeCorrectCmd(), a.feedbackExportCmd())
	return cmd
}

func (a *app) edgeCorrectCmd() *cobra.Command {
	var edgeID int64
	var relation, reason, by string
	c := &cobra.Command{
		Use:   "edge-correct",
		Short: "Correct an NLI edge's relation: the model's judgement is kept beside it, the claim's posterior recomputed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case edgeID <= 0:
				return usageErr("--edge is required: the edge's id (enqueue graph lists them)")
			case nliLabels[relation] == "":
				return usageErr("--relation %q: want supports, refutes or neutral", relation)
			}
			if err := requireReviewer(reason, by); err != nil {
				return err
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			res, err := a.svc.CorrectEdge(cmd.Context(), a.org, service.EdgeCorrection{EdgeID: edgeID, Relation: relation, Reason: reason, By: by})
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) {
				if !res.Changed {
					fmt.Fprintf(w, "edge %d: already corrected to %s, nothing changed\n", res.EdgeID, res.Relation)
					return
				}
				fmt.Fprintf(w, "edge %d: %s → %s; claim %d is now %s\n", res.EdgeID, res.Old, res.Relation, res.ClaimID, res.Verdict)
			})
		},
	}
	c.Flags().Int64Var(&edgeID, "edge", 0, "the edge's id (required)")
	c.Flags().StringVar(&relation, "relation", "", "supports, refutes or neutral (required)")
	reviewerFlags(c, &reason, &by)
	return c
}

// nliLabels map an edge's relation to a training label (testdata/nli-train).
var nliLabels = map[string]string{"supports": "entailment", "refutes": "contradiction", "neutral": "neutral"}

func (a *app) feedbackExportCmd() *cobra.Command {
	var taskID int64
	c := &cobra.Command{
		Use:   "export",
		Short: "Corrected edges as labelled pairs (label, premise, hypothesis, what the model said), the format of make train-nli's data",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			rows, err := a.svc.CorrectedPairs(cmd.Context(), a.org, taskID)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"pairs": rows}, func(w io.Writer) {
				for _, r := range rows {
					fmt.Fprintf(w, "%s\t%s\t%s\treviewer_correction model=%s\n", nliLabels[r.Relation], oneLine(r.Premise), oneLine(r.Hypothesis), r.ModelRelation)
				}
			})
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "only this task's edges (default: all of your organization's tasks)")
	return c
}

// oneLine makes text one TSV field: tabs and line breaks become spaces,
// runs of spaces one.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
			if err := requireReviewer(reason, by); err != nil {
				return err
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			res, err := a.svc.ClaimFeedback(cmd.Context(), a.org, service.ClaimVerdictFeedback{ClaimID: claimID, Reject: reject, Reason: reason, By: by})
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
