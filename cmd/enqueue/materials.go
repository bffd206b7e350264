package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

func (a *app) materialsCmd() *cobra.Command {
	var taskID int64
	var query string
	cmd := &cobra.Command{
		Use:   "materials",
		Short: "Print a task's current ranking as a reading list: rank, score, page, exact span and text of each fragment",
		Long: "Print the task's current ranking for a query (default: its hypothesis), written by the rerank job,\n" +
			"as a reading list. Every entry resolves to an exact span of the page version the task saw.\n" +
			"The table view truncates fragment texts; --json has them in full.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := a.forTask(cmd, taskID)
			if err != nil {
				return err
			}
			m, err := a.svc.Materials(ctx, a.org, taskID, query)
			if err != nil {
				return err
			}
			return a.emit(m, func(w io.Writer) { writeMaterials(w, m) })
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	cmd.Flags().StringVar(&query, "query", "", "the query of the ranking (default: the task's hypothesis)")
	return cmd
}

// materialTextRunes is how much of a fragment the table view shows.
const materialTextRunes = 200

func writeMaterials(w io.Writer, m *service.Materials) {
	which := "query"
	if m.FromHypothesis {
		which = "hypothesis"
	}
	if m.Notice != "" {
		fmt.Fprintln(w, m.Notice)
	}
	fmt.Fprintf(w, "Reading list — task %d, %s: %s\n", m.TaskID, which, m.Query)
	if len(m.Ranking) == 0 {
		fmt.Fprintf(w, "No ranking for this %s yet. Rank the task's fragments with:\n  %s\n", which, service.RerankCommand(m.TaskID, m.QueryArg()))
		if len(m.RankedQueries) > 0 {
			fmt.Fprintln(w, "Rankings exist for (enqueue materials --query …):")
			for _, q := range m.RankedQueries {
				fmt.Fprintf(w, "  %q — %d fragments, ranked %s\n", q.Query, q.Fragments, q.RankedAt.UTC().Format(time.RFC3339))
			}
		}
		return
	}
	fmt.Fprintf(w, "%d fragments, ranked %s (embeddings %s, reranker %s); score = rerank score × domain trust weight\n",
		len(m.Ranking), m.RankedAt.UTC().Format(time.RFC3339), m.EmbedModel, m.RerankModel)
	for _, r := range m.Ranking {
		source := r.Span.URL
		if r.Title != "" {
			source = r.Title + " — " + r.Span.URL
		}
		fmt.Fprintf(w, "\n%3d. %.4f  %s ×%.2f  %s\n", r.Rank, r.FinalScore, r.TrustLevel, r.TrustWeight, source)
		fmt.Fprintf(w, "     “%s”\n", truncate(strings.Join(strings.Fields(r.Span.Text), " "), materialTextRunes))
		fmt.Fprintf(w, "     [chars %d–%d of version %d; fragment %d; rerank %.4f, lexical %.4f, cosine %.4f]\n",
			r.Span.StartChar, r.Span.EndChar, r.Span.PageVersionID, r.FragmentID, r.RerankScore, r.LexicalScore, r.Cosine)
	}
}
