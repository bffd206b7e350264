package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
)

// WriteText writes the report as aligned text tables.
func WriteText(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "make eval: measured at %s\n", r.Measured)
	if r.NLIData != "" {
		fmt.Fprintf(ew, "NLI pairs: %s\n", r.NLIData)
	}
	if r.ClimateFever != nil {
		fmt.Fprintf(ew, "Climate-FEVER claims: %s\n", r.ClimateFever.ClaimsFile)
	}
	if b := modelcard.Banner([]string{r.Models.Embed, r.Models.NLI, r.Models.LLM}); b != "" {
		fmt.Fprintln(ew, b)
	}
	m := r.Models
	fmt.Fprintf(ew, "models: embed %s (%s), nli %s (%s), llm %s (%s)\n",
		m.Embed, m.EmbedBackend, m.NLI, m.NLIBackend, m.LLM, m.LLMBackend)
	if len(r.NLI) > 0 {
		fmt.Fprintf(ew, "\n== NLI pairs: model %s ==\n", r.NLI[0].Model)
		tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "file\tN\taccuracy\t95% interval\tmacro-F1\tmajority-class rate\tcalibration error (ECE)\tAUC supports / refutes vs neutral\tpairs/s\t\n")
		for _, f := range r.NLI {
			s := f.Scores
			ece := 0.0
			if s.Calibration != nil {
				ece = s.Calibration.ECE
			}
			auc := "—"
			if s.Separation != nil {
				auc = fmt.Sprintf("%.3f / %.3f", s.Separation.Supports.Value, s.Separation.Refutes.Value)
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%.3f\t%.3f\t%.3f\t%s\t%.0f\t\n", f.File, s.N, s.Accuracy, s.AccuracyInterval, s.MacroF1, s.MajorityRate, ece, auc, f.PairsPerSecond)
		}
		_ = tw.Flush()
		writeReliability(ew, r.NLI)
		fmt.Fprintln(ew)
		tw = tabwriter.NewWriter(ew, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "file\tclass\tgold\tpredicted\tprecision\trecall\tF1\t\n")
		for _, f := range r.NLI {
			for _, c := range f.Scores.Classes {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t\n", f.File, c.Label, c.Gold, c.Predicted, c.Precision, c.Recall, c.F1)
			}
		}
		_ = tw.Flush()
	}
	if cf := r.ClimateFever; cf != nil {
		writeFleet(ew, cf)
	}
	if s := r.ClimateFeverSentences; s != nil {
		fmt.Fprintln(ew, "\nThe same model on every gold pair alone, no fleet between (the evidence sentence is the premise, the claim the hypothesis; raw labels):")
		_ = s.WriteMatrix(ew)
		writeSeparation(ew, s.Separation)
		if rel := r.ClimateFeverRelatedness; rel != nil {
			fmt.Fprintf(ew, "  for reference, the embedder's cosine alone (relatedness, no direction): supports %.3f, refutes %.3f\n",
				rel.Supports.Value, rel.Refutes.Value)
		}
	}
	if r.ClimateFever != nil && r.ClimateFeverOpen != nil {
		writeModes(ew, r.ClimateFever, r.ClimateFeverOpen, r.ClimateFeverSelfDirected)
	}
	fmt.Fprintf(ew, "\ntotal time %.1fs\n", r.TotalSeconds)
	return ew.err
}

// writeSeparation writes how well the judge ranks each decisive relation's
// gold pairs above the neutral ones, or that the model gives no
// distribution to rank by.
func writeSeparation(w io.Writer, s *Separation) {
	if s == nil {
		fmt.Fprintln(w, "ranking: — (the model gives its top label only, or a relation has no gold pair)")
		return
	}
	fmt.Fprintln(w, "Ranking, whatever the threshold (area under the ROC curve; 0.5 is chance, 1 every such pair above every neutral one):")
	fmt.Fprintf(w, "  P(supports), gold supports against gold neutral pairs: %s\n", s.Supports)
	fmt.Fprintf(w, "  P(refutes), gold refutes against gold neutral pairs:   %s\n", s.Refutes)
}

func writeFleet(w io.Writer, cf *FleetResult) {
	fmt.Fprintf(w, "\n== Climate-FEVER end to end: %s, %d claims, %d replayed articles ==\n", cf.ClaimsFile, cf.Claims, cf.Articles)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "fleet wall time\t%.1fs (start until no %s job of the task is waiting or running)\n", cf.WallSeconds, strings.Join(FleetKinds, "/"))
	fmt.Fprintf(tw, "jobs completed\t%d, %.1f jobs/s\n", cf.JobsCompleted, cf.JobsPerSecond)
	for _, kind := range sortedKeys(cf.Jobs) {
		var parts []string
		for _, state := range sortedKeys(cf.Jobs[kind]) {
			parts = append(parts, fmt.Sprintf("%s %d", state, cf.Jobs[kind][state]))
		}
		fmt.Fprintf(tw, "  %s\t%s\n", kind, strings.Join(parts, ", "))
	}
	fmt.Fprintf(tw, "workers\t%s on %d CPUs\n", joinCounts(cf.Workers), cf.CPUs)
	fmt.Fprintf(tw, "pages\t%d\n", cf.Pages)
	fmt.Fprintf(tw, "fragments\t%d\n", cf.Fragments)
	fmt.Fprintf(tw, "NLI edges\t%d (supports %d, refutes %d, neutral %d)\n", cf.Edges,
		cf.EdgesByRelation["supports"], cf.EdgesByRelation["refutes"], cf.EdgesByRelation["neutral"])
	fmt.Fprintf(tw, "extracted claims\t%d (verified too, not scored)\n", cf.ExtractedClaims)
	fmt.Fprintf(tw, "models in the graph\tnli %s; embed %s\n", orNone(cf.NLIModelsSeen), orNone(cf.EmbedModelsSeen))
	fmt.Fprintf(tw, "graph digest\tsha256:%s (natural keys and posteriors: %s)\n", cf.GraphDigest, cf.GraphRows)
	if len(cf.FailedTargets) > 0 {
		fmt.Fprintf(tw, "failed targets\t%d: %s\n", len(cf.FailedTargets), strings.Join(cf.FailedTargets, "; "))
	}
	_ = tw.Flush()
	if len(cf.Timings) > 0 {
		fmt.Fprintln(w, "\nWhere the time went (last attempt of each finished job; seconds):")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "kind\tjobs\tlast finished at\tbusy (sum)\tlongest job\t\n")
		for _, k := range cf.Timings {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.2f\t\n", k.Kind, k.Jobs, k.LastFinishedAt, k.BusySeconds, k.LongestSeconds)
		}
		_ = tw.Flush()
	}

	fmt.Fprintln(w, "\nClaim verdicts vs gold claim labels (supported, well_supported → SUPPORTS; likely_false → REFUTES; unverified → NOT_ENOUGH_INFO; contested → DISPUTED):")
	_ = cf.ClaimScores.WriteMatrix(w)
	fmt.Fprintf(w, "verdicts: %s\n", joinCounts(cf.Verdicts))

	fmt.Fprintln(w, "\nGold evidence pairs (claim, evidence sentence): edges.nli_label — the model's raw label, before low-confidence supports/refutes are stored with relation neutral — vs evidence_label (SUPPORTS → supports, REFUTES → refutes, NOT_ENOUGH_INFO → neutral).")
	fmt.Fprintln(w, "A sentence is located in its page version; the edge compared is that of the judged fragment holding most of it.")
	fmt.Fprintf(w, "coverage: %d of %d gold pairs judged (%.1f%%); %d located in their page version, %d of them across two or more fragments; %d evidence entries not usable as pairs\n",
		cf.Judged, cf.GoldPairs, pct(cf.Judged, cf.GoldPairs), cf.Located, cf.Straddling, cf.SkippedEvidence)
	_ = cf.PairScores.WriteMatrix(w)

	fmt.Fprintln(w, "\nRetrieval against judgement: the same claims' verdicts from a perfect judge (each gold pair that reaches it counts with its gold label at confidence 1, through the fleet's posterior and verdict rule).")
	fmt.Fprintf(w, "retrieval: %d of %d gold pairs reach the judge (%.1f%%); %d of %d claims with gold pairs have one judged (%.1f%%)\n",
		cf.Judged, cf.GoldPairs, pct(cf.Judged, cf.GoldPairs), cf.ClaimsJudged, cf.ClaimsWithGold, pct(cf.ClaimsJudged, cf.ClaimsWithGold))
	if len(cf.JudgedByLabel) > 0 {
		var parts []string
		for _, l := range NLILabels {
			if r, ok := cf.JudgedByLabel[l]; ok {
				parts = append(parts, fmt.Sprintf("%s %d of %d (%.1f%%)", l, r.Judged, r.Of, pct(r.Judged, r.Of)))
			}
		}
		fmt.Fprintf(w, "gold pairs reaching the judge by gold label: %s\n", strings.Join(parts, ", "))
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "judge\tpairs judged\tverdict accuracy\tmacro-F1\t\n")
	fmt.Fprintf(tw, "the model\tthe fleet's\t%.3f\t%.3f\t\n", cf.ClaimScores.Accuracy, cf.ClaimScores.MacroF1)
	fmt.Fprintf(tw, "perfect\tthe fleet's\t%.3f\t%.3f\t\n", cf.OracleJudged.Accuracy, cf.OracleJudged.MacroF1)
	fmt.Fprintf(tw, "perfect\tevery gold pair\t%.3f\t%.3f\t\n", cf.OracleAll.Accuracy, cf.OracleAll.MacroF1)
	_ = tw.Flush()
}

// writeModes compares the given-pages run with the open-mode run.
func writeModes(w io.Writer, given, open, self *FleetResult) {
	fmt.Fprintf(w, "\n== Climate-FEVER: given pages vs open mode vs self-directed, %d claims ==\n", open.Claims)
	fmt.Fprintln(w, "Given: every replayed article is a target. Open: each claim is only a query target (its text); the fleet searches the same replay archive (offline BM25, internal/search/offline), fetches the results, extracts and judges.")
	fmt.Fprintf(w, "Self-directed: each claim is its own task with only the claim (retrieval self_directed, budget %s); the fleet's planner chooses its queries and fetches (internal/planner).\n", SelfDirectedBudget)
	results := []*FleetResult{given, open}
	header := "\tgiven\topen\t"
	if self != nil {
		results = append(results, self)
		header += "self-directed\t"
	}
	fmt.Fprintln(w, "A claim's gold articles are the articles of its evidence entries (any label). The archive holds exactly the claims' evidence articles: a closed world, not the web.")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, header+"\n")
	row := func(name string, f func(*FleetResult) string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t", f(r))
		}
		fmt.Fprintln(tw)
	}
	share := func(n func(Retrieval) int) func(*FleetResult) string {
		return func(cf *FleetResult) string {
			k := n(cf.Retrieval)
			if k < 0 {
				return "—"
			}
			return fmt.Sprintf("%d of %d (%.1f%%)", k, cf.Retrieval.ClaimsWithArticle, pct(k, cf.Retrieval.ClaimsWithArticle))
		}
	}
	row("claims with a gold article in the task's pages", share(func(r Retrieval) int { return r.InTask }))
	row("… in their own search's results", share(func(r Retrieval) int { return r.InOwnSearch }))
	row("… judged against the claim (an NLI edge)", share(func(r Retrieval) int { return r.Judged }))
	row("searches per claim", func(cf *FleetResult) string {
		return fmt.Sprintf("%.2f (%d)", cf.Retrieval.SearchesPerClaim, cf.Retrieval.Searches)
	})
	row("fetches per claim", func(cf *FleetResult) string {
		return fmt.Sprintf("%.2f (%d)", cf.Retrieval.FetchesPerClaim, cf.Retrieval.Fetches)
	})
	row("pages / fragments", func(cf *FleetResult) string { return fmt.Sprintf("%d / %d", cf.Pages, cf.Fragments) })
	row("NLI edges (supports, refutes)", func(cf *FleetResult) string {
		return fmt.Sprintf("%d (%d, %d)", cf.Edges, cf.EdgesByRelation["supports"], cf.EdgesByRelation["refutes"])
	})
	row("gold pairs judged", func(cf *FleetResult) string {
		return fmt.Sprintf("%d of %d (%.1f%%)", cf.Judged, cf.GoldPairs, pct(cf.Judged, cf.GoldPairs))
	})
	row("verdict accuracy / macro-F1", func(cf *FleetResult) string {
		return fmt.Sprintf("%.3f / %.3f", cf.ClaimScores.Accuracy, cf.ClaimScores.MacroF1)
	})
	row("… with a perfect judge on the pairs judged", func(cf *FleetResult) string {
		return fmt.Sprintf("%.3f / %.3f", cf.OracleJudged.Accuracy, cf.OracleJudged.MacroF1)
	})
	row("fleet wall time", func(cf *FleetResult) string { return fmt.Sprintf("%.1fs (%d jobs)", cf.WallSeconds, cf.JobsCompleted) })
	row("graph digest", func(cf *FleetResult) string { return "sha256:" + shortDigest(cf.GraphDigest) })
	_ = tw.Flush()
	if len(open.FailedTargets) > 0 {
		fmt.Fprintf(w, "open mode: %d failed targets: %s\n", len(open.FailedTargets), strings.Join(open.FailedTargets, "; "))
	}
	fmt.Fprintln(w, "\nOpen mode: claim verdicts vs gold claim labels:")
	_ = open.ClaimScores.WriteMatrix(w)
	fmt.Fprintf(w, "verdicts: %s\n", joinCounts(open.Verdicts))
	if self != nil {
		if len(self.FailedTargets) > 0 {
			fmt.Fprintf(w, "self-directed: %d failed targets\n", len(self.FailedTargets))
		}
		fmt.Fprintln(w, "\nSelf-directed: claim verdicts vs gold claim labels:")
		_ = self.ClaimScores.WriteMatrix(w)
		fmt.Fprintf(w, "verdicts: %s\n", joinCounts(self.Verdicts))
	}
}

// shortDigest is the first 12 hex digits of a digest.
func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12] + "…"
	}
	return d
}

// joinCounts renders m as "k1 n1, k2 n2" in key order.
func joinCounts(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

// errWriter keeps the first write error and drops later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// writeReliability prints the NLI files' reliability tables side by side:
// per confidence bin, the pairs and the accuracy of their top class.
func writeReliability(w io.Writer, files []NLIFileResult) {
	if len(files) == 0 || files[0].Scores.Calibration == nil {
		return
	}
	fmt.Fprintln(w, "\nReliability: per bin of the top class's confidence, pairs (accuracy).")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "confidence\t")
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t", f.File)
	}
	fmt.Fprintln(tw)
	for i, b := range files[0].Scores.Calibration.Bins {
		fmt.Fprintf(tw, "[%.2f, %.2f)\t", b.From, b.To)
		for _, f := range files {
			if c := f.Scores.Calibration; c != nil && i < len(c.Bins) {
				fmt.Fprintf(tw, "%d (%.2f)\t", c.Bins[i].N, c.Bins[i].Accuracy)
			}
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}
