package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
)

func (a *app) graphCmd() *cobra.Command {
	var taskID int64
	var format string
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Export a task's evidence graph: claims with E-numbers and posteriors, edges with exact spans, pages (json or dot)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			if a.jsonOut {
				format = "json"
			}
			if format != "json" && format != "dot" {
				return usageErr("--format must be json or dot")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			g, err := a.svc.Graph(ctx, a.org, taskID)
			if err != nil {
				return err
			}
			if format == "json" {
				a.jsonOut = true
				return a.emit(g, nil)
			}
			writeDOT(a.out, g)
			return nil
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	cmd.Flags().StringVar(&format, "format", "json", "json or dot")
	return cmd
}

// writeDOT renders claims (boxes) and pages (ellipses) with one arrow per
// page→claim relation, labelled with the strongest NLI confidence, and a
// dashed arrow per page→page citation. The graph's label names the models
// behind the judgements (and the baseline banner when one is a built-in).
func writeDOT(w io.Writer, g *service.Graph) {
	fmt.Fprintf(w, "digraph task_%d {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n", g.TaskID)
	var label strings.Builder
	if g.Notice != "" {
		fmt.Fprintln(&label, g.Notice)
	}
	writeModels(&label, g.Models)
	fmt.Fprintf(w, "  labelloc=t;\n  label=%s;\n", dotQuote(strings.TrimRight(label.String(), "\n")))
	for _, c := range g.Claims {
		fmt.Fprintf(w, "  c%d [shape=box, label=%s];\n", c.ID,
			dotQuote(fmt.Sprintf("%s %s\n%s %.2f±%.2f\nbelief %.2f (linked %.2f)", c.EvidenceNo, truncate(c.Text, 60), c.Verdict,
				c.Confidence, c.Uncertainty, c.Belief, c.PropagatedBelief)))
	}
	for _, l := range g.ClaimLinks { // the dependent claim → the claim it depends on
		fmt.Fprintf(w, "  c%d -> c%d [label=%s, style=bold, color=%s];\n", l.FromClaimID, l.ToClaimID,
			dotQuote(fmt.Sprintf("%s %.2f", l.Relation, l.Weight)), map[bool]string{true: "red3", false: "darkgreen"}[l.Relation == "contradicts"])
	}
	for _, p := range g.Pages {
		fmt.Fprintf(w, "  p%d [shape=ellipse, label=%s];\n", p.ID, dotQuote(truncate(p.URL, 60)))
	}
	type key struct {
		page, claim int64
		rel         string
	}
	best := map[key]float64{}
	var order []key
	for _, e := range g.Edges {
		k := key{e.Source.PageID, e.ClaimID, e.Relation}
		conf := 0.0
		if e.NLIConfidence != nil {
			conf = *e.NLIConfidence
		}
		if old, ok := best[k]; !ok {
			order = append(order, k)
			best[k] = conf
		} else if conf > old {
			best[k] = conf
		}
	}
	colors := map[string]string{"supports": "darkgreen", "refutes": "red3", "neutral": "gray60", "origin": "blue"}
	for _, k := range order {
		label := k.rel
		if k.rel != "origin" {
			label = fmt.Sprintf("%s %.2f", k.rel, best[k])
		}
		fmt.Fprintf(w, "  p%d -> c%d [label=%s, color=%s];\n", k.page, k.claim, dotQuote(label), colors[k.rel])
	}
	for _, c := range g.Citations {
		fmt.Fprintf(w, "  p%d -> p%d [label=%s, style=dashed, color=purple];\n", c.Citing, c.Cited, dotQuote("cites "+c.Source))
	}
	fmt.Fprintln(w, "}")
}

func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func truncate(s string, n int) string { return textclip.Runes(s, n) }
