package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/service"
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
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			g, err := a.svc.Graph(ctx, a.org, taskID)
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

func writeReport(w io.Writer, g *service.Graph, all bool, quotes int) {
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
	if r := g.Rechecks; r.LastCheckedAt != nil {
		fmt.Fprintf(w, "rechecks of the cited pages: %s (latest %s)\n", r.Summary, r.LastCheckedAt.UTC().Format(time.RFC3339))
	}
	writeSources(w, g)
	byClaim := map[int64][]service.GraphEdge{}
	for _, e := range g.Edges {
		byClaim[e.ClaimID] = append(byClaim[e.ClaimID], e)
	}
	pageLevel := map[int64]string{}
	for _, p := range g.Pages {
		pageLevel[p.ID] = p.TrustLevel
	}
	hidden := 0
	for _, c := range g.Claims {
		if !all && c.Kind == "extracted" && c.Supporting+c.Refuting == 0 {
			hidden++
			continue
		}
		fmt.Fprintf(w, "\n%s [%s] %s\n", c.EvidenceNo, c.Kind, c.Text)
		// the Beta posterior, then the log-odds belief beside it (§5.8)
		fmt.Fprintf(w, "    verdict %-15s confidence %.3f  uncertainty %.3f  controversy %.3f  (supports %d, refutes %d, neutral %d, independent sites %d)  belief %.3f (a probability, from log-odds %+.3f; after claim links %.3f)\n",
			c.Verdict, c.Confidence, c.Uncertainty, c.Controversy, c.Supporting, c.Refuting, c.Neutral, c.IndependentSources,
			c.Belief, c.BeliefLogOdds, c.PropagatedBelief)
		fmt.Fprintf(w, "    verification %s (adoption %s): %s (confident sites: %d supporting, %d refuting)\n",
			c.Verification, c.AdoptionStatus, c.VerificationReason, c.SupportingSites, c.RefutingSites)
		fmt.Fprintf(w, "    NLI edges by source level: %s\n", joinCounts(nliLevels(byClaim[c.ID])))
		if c.Origin != nil {
			level := ""
			if l := pageLevel[c.Origin.PageID]; l != "" {
				level = " (" + l + ")"
			}
			fmt.Fprintf(w, "    origin: “%s”\n      — %s%s [chars %d–%d of version %d]\n",
				truncate(strings.Join(strings.Fields(c.Origin.Text), " "), 240), c.Origin.URL, level,
				c.Origin.StartChar, c.Origin.EndChar, c.Origin.PageVersionID)
			writeRecheck(w, c.Origin.Recheck)
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
				writeRecheck(w, e.Source.Recheck)
			}
		}
	}
	if hidden > 0 {
		fmt.Fprintf(w, "\n(%d extracted claims without cross-source supports/refutes not shown; --all shows them)\n", hidden)
	}
}

// noLevel counts the NLI edges written without a source level (a domain
// without a row when they were judged).
const noLevel = "none"

// nliLevels counts NLI edges (supports, refutes, neutral) by the source
// trust level stamped on them when they were judged.
// writeRecheck prints a quote's latest recheck, when it had one: its
// state and date, where a moved page went, an edited span's new text.
func writeRecheck(w io.Writer, r *service.CitationRecheck) {
	if r == nil {
		return
	}
	line := fmt.Sprintf("      rechecked %s: %s", r.CheckedAt.UTC().Format(time.DateOnly), r.State)
	switch {
	case r.State == "moved" && r.FinalURL != nil:
		line += " to " + *r.FinalURL
	case r.State == "edited" && r.TextAround != nil:
		line += fmt.Sprintf(" — the page now says “%s”", truncate(strings.Join(strings.Fields(*r.TextAround), " "), 240))
	case r.State == "edited":
		line += " — the words around it are gone too"
	}
	fmt.Fprintln(w, line)
}

func nliLevels(edges []service.GraphEdge) map[string]int {
	n := map[string]int{}
	for _, e := range edges {
		if e.Relation == "origin" {
			continue
		}
		level := noLevel
		if e.SourceTrustLevel != nil && *e.SourceTrustLevel != "" {
			level = *e.SourceTrustLevel
		}
		n[level]++
	}
	return n
}

// reportDomains is how many source domains the report lists; enqueue graph
// has every page with its level.
const reportDomains = 12

// writeSources prints the task's NLI edges by the source level stamped on
// them, then its source domains, most NLI edges first: each domain's level
// of record now, its pages and its NLI edges by the level they were judged
// with (a level changed since shows as the two differing), and the BLOCKED
// domains among them.
func writeSources(w io.Writer, g *service.Graph) {
	fmt.Fprintf(w, "NLI edges by source level: %s\n", joinCounts(nliLevels(g.Edges)))
	type source struct {
		domain, level string
		pages         int
		edges         []service.GraphEdge
	}
	byDomain := map[string]*source{}
	var sources []*source
	get := func(domain string) *source {
		s, ok := byDomain[domain]
		if !ok {
			s = &source{domain: domain}
			byDomain[domain] = s
			sources = append(sources, s)
		}
		return s
	}
	for _, p := range g.Pages {
		s := get(p.Domain)
		s.level = p.TrustLevel
		s.pages++
	}
	for _, e := range g.Edges {
		if e.Relation != "origin" {
			s := get(e.Domain)
			s.edges = append(s.edges, e)
		}
	}
	sort.SliceStable(sources, func(i, j int) bool {
		a, b := sources[i], sources[j]
		if len(a.edges) != len(b.edges) {
			return len(a.edges) > len(b.edges)
		}
		if a.pages != b.pages {
			return a.pages > b.pages
		}
		return a.domain < b.domain
	})
	fmt.Fprintln(w, "sources: domain, level of record now, pages, NLI edges from it by the source level they were judged with")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var blocked []string
	for i, s := range sources {
		if s.level == domainpolicy.Blocked {
			blocked = append(blocked, s.domain)
		}
		if i < reportDomains {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s: %s\n", s.domain, orNone(s.level), count(s.pages, "page"),
				count(len(s.edges), "NLI edge"), joinCounts(nliLevels(s.edges)))
		}
	}
	tw.Flush()
	if len(sources) > reportDomains {
		fmt.Fprintf(w, "  … and %d more domains (enqueue graph --json has every page's trust_level)\n", len(sources)-reportDomains)
	}
	if len(blocked) == 0 {
		fmt.Fprintln(w, "blocked domains: none")
	} else {
		fmt.Fprintf(w, "blocked domains: %s (enqueue status says when, why and by whom)\n", strings.Join(blocked, ", "))
	}
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return noLevel
	}
	return s
}

// count is "1 page", "2 pages".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
