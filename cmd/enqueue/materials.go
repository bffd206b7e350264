package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/rank"
	"github.com/evidencefleet/evidencefleet/store"
)

// materialsExport is a task's current ranking for one query, as printed by
// `enqueue materials` (and, for the hypothesis, the "ranking" of `enqueue graph`).
type materialsExport struct {
	TaskID         int64            `json:"task_id"`
	Query          string           `json:"query"`
	QueryHash      string           `json:"query_hash"`
	FromHypothesis bool             `json:"query_is_hypothesis"`
	RankedAt       *time.Time       `json:"ranked_at"` // null while there is no ranking
	EmbedModel     string           `json:"embed_model,omitempty"`
	RerankModel    string           `json:"rerank_model,omitempty"`
	Notice         string           `json:"notice,omitempty"` // baseline banner when a built-in ranked it (internal/modelcard)
	Ranking        []rankedMaterial `json:"ranking"`
	RankedQueries  []rankedQuery    `json:"ranked_queries"` // every query the task has a ranking for
	Hint           string           `json:"hint,omitempty"` // how to get a ranking when there is none
}

// rankedMaterial is one entry of a ranking: the fragment to read, its exact
// span, and the raw score of every stage next to the trust weight.
type rankedMaterial struct {
	Rank         int32   `json:"rank"`
	FragmentID   int64   `json:"fragment_id"`
	FinalScore   float64 `json:"final_score"`
	RerankScore  float64 `json:"rerank_score"`
	TrustLevel   string  `json:"trust_level"`
	TrustWeight  float64 `json:"trust_weight"`
	LexicalScore float64 `json:"lexical_score"`
	Cosine       float64 `json:"cosine"`
	Stage2Score  float64 `json:"stage2_score"`
	Domain       string  `json:"domain"`
	Title        string  `json:"title,omitempty"`
	Span         span    `json:"span"`
}

// rankedQuery is one query a task has a ranking for.
type rankedQuery struct {
	Query     string    `json:"query"`
	QueryHash string    `json:"query_hash"`
	Fragments int32     `json:"fragments"`
	RankedAt  time.Time `json:"ranked_at"`
}

// loadRanking reads the task's current ranking for query ("" = the hypothesis).
func loadRanking(ctx context.Context, st *store.Store, taskID int64, query string) (*materialsExport, error) {
	task, err := st.ExistingTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	m := &materialsExport{TaskID: taskID, Query: strings.TrimSpace(query), Ranking: []rankedMaterial{}, RankedQueries: []rankedQuery{}}
	if m.Query == "" {
		m.Query, m.FromHypothesis = task.Hypothesis, true
	}
	m.QueryHash = rank.QueryHash(m.Query)
	rows, err := st.TaskRanking(ctx, store.TaskRankingParams{TaskID: taskID, QueryHash: m.QueryHash})
	if err != nil {
		return nil, fmt.Errorf("ranking of task %d: %w", taskID, err)
	}
	for _, r := range rows {
		if m.RankedAt == nil {
			at := r.RankedAt
			m.RankedAt, m.EmbedModel, m.RerankModel = &at, r.EmbedModel, r.RerankModel
			m.Notice = modelcard.Banner([]string{r.EmbedModel, r.RerankModel})
		}
		m.Ranking = append(m.Ranking, rankedMaterial{Rank: r.Rank, FragmentID: r.FragmentID, FinalScore: r.FinalScore,
			RerankScore: r.RerankScore, TrustLevel: r.TrustLevel, TrustWeight: r.TrustWeight, LexicalScore: r.LexicalScore,
			Cosine: r.Cosine, Stage2Score: r.Stage2Score, Domain: r.Domain, Title: r.Title,
			Span: span{PageID: r.PageID, PageVersionID: r.PageVersionID, StartChar: r.StartChar, EndChar: r.EndChar,
				URL: r.Url, Text: r.Text}})
	}
	queries, err := st.TaskRankingQueries(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("ranked queries of task %d: %w", taskID, err)
	}
	for _, q := range queries {
		m.RankedQueries = append(m.RankedQueries, rankedQuery{Query: q.Query, QueryHash: q.QueryHash, Fragments: q.Fragments, RankedAt: q.RankedAt})
	}
	if len(m.Ranking) == 0 {
		m.Hint = "no ranking yet; rank with: " + rerankCommand(taskID, queryArg(m))
	}
	return m, nil
}

// rerankCommand is the shell command that enqueues the ranking of query
// ("" = the hypothesis) for a task.
func rerankCommand(taskID int64, query string) string {
	args := struct {
		TaskID int64  `json:"task_id"`
		Query  string `json:"query,omitempty"`
	}{taskID, strings.TrimSpace(query)}
	b, _ := json.Marshal(args) // cannot fail: an int and a string
	return "enqueue job --kind rerank --args '" + strings.ReplaceAll(string(b), "'", `'\''`) + "'"
}

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
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			m, err := loadRanking(ctx, a.store, taskID, query)
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

func writeMaterials(w io.Writer, m *materialsExport) {
	which := "query"
	if m.FromHypothesis {
		which = "hypothesis"
	}
	if m.Notice != "" {
		fmt.Fprintln(w, m.Notice)
	}
	fmt.Fprintf(w, "Reading list — task %d, %s: %s\n", m.TaskID, which, m.Query)
	if len(m.Ranking) == 0 {
		fmt.Fprintf(w, "No ranking for this %s yet. Rank the task's fragments with:\n  %s\n", which, rerankCommand(m.TaskID, queryArg(m)))
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

// queryArg is the --query the ranking was asked for ("" for the hypothesis).
func queryArg(m *materialsExport) string {
	if m.FromHypothesis {
		return ""
	}
	return m.Query
}
