package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) reportCmd() *cobra.Command {
	var taskID int64
	var all bool
	var quotes int
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print a readable evidence report: each claim's verdict, confidence, uncertainty, controversy and top quotes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			g, err := loadGraph(ctx, a.store, taskID)
			if err != nil {
				return err
			}
			return a.emit(g, func(w io.Writer) { writeReport(w, g, all, quotes) })
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	cmd.Flags().BoolVar(&all, "all", false, "include extracted claims without cross-source evidence")
	cmd.Flags().IntVar(&quotes, "quotes", 2, "supporting and refuting quotes shown per claim")
	return cmd
}

func writeReport(w io.Writer, g *graphExport, all bool, quotes int) {
	if g.Notice != "" {
		fmt.Fprintln(w, g.Notice)
	}
	fmt.Fprintf(w, "Evidence report — task %d (%s)\nHypothesis: %s\n", g.TaskID, g.Organization, g.Hypothesis)
	writeModels(w, g.Models)
	fmt.Fprintf(w, "%d claims, %d edges, %d pages\n", len(g.Claims), len(g.Edges), len(g.Pages))
	rel := map[string]int{}
	for _, e := range g.Edges {
		rel[e.Relation]++
	}
	fmt.Fprintf(w, "edges by relation: %s\n", joinCounts(rel))
	byClaim := map[int64][]graphEdge{}
	for _, e := range g.Edges {
		byClaim[e.ClaimID] = append(byClaim[e.ClaimID], e)
	}
	hidden := 0
	for _, c := range g.Claims {
		if !all && c.Kind == "extracted" && c.Supporting+c.Refuting == 0 {
			hidden++
			continue
		}
		fmt.Fprintf(w, "\n%s [%s] %s\n", c.EvidenceNo, c.Kind, c.Text)
		fmt.Fprintf(w, "    verdict %-15s confidence %.3f  uncertainty %.3f  controversy %.3f  (supports %d, refutes %d, neutral %d, independent sites %d)\n",
			c.Verdict, c.Confidence, c.Uncertainty, c.Controversy, c.Supporting, c.Refuting, c.Neutral, c.IndependentSources)
		fmt.Fprintf(w, "    verification %s, %s: %s (confident sites: %d supporting, %d refuting)\n",
			c.Verification, c.AdoptionStatus, c.VerificationReason, c.SupportingSites, c.RefutingSites)
		if c.Origin != nil {
			fmt.Fprintf(w, "    origin: “%s”\n      — %s [chars %d–%d of version %d]\n",
				truncate(strings.Join(strings.Fields(c.Origin.Text), " "), 240), c.Origin.URL,
				c.Origin.StartChar, c.Origin.EndChar, c.Origin.PageVersionID)
		}
		for _, relation := range []string{"supports", "refutes"} {
			shown := 0
			for _, e := range byClaim[c.ID] { // ordered by confidence, best first
				if e.Relation != relation || shown >= quotes {
					continue
				}
				shown++
				conf := 0.0
				if e.NLIConfidence != nil {
					conf = *e.NLIConfidence
				}
				level := "UNVERIFIED"
				if e.SourceTrustLevel != nil {
					level = *e.SourceTrustLevel
				}
				fmt.Fprintf(w, "    %s %.2f  “%s”\n      — %s (%s) [chars %d–%d of version %d]\n", relation, conf,
					truncate(strings.Join(strings.Fields(e.Source.Text), " "), 240), e.Source.URL, level,
					e.Source.StartChar, e.Source.EndChar, e.Source.PageVersionID)
			}
		}
	}
	if hidden > 0 {
		fmt.Fprintf(w, "\n(%d extracted claims without cross-source supports/refutes not shown; --all shows them)\n", hidden)
	}
}
