package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/rank"
	"github.com/evidencefleet/evidencefleet/store"
)

// Materials is a task's current ranking for one query, as printed by
// `enqueue materials` (and, for the hypothesis, the "ranking" of `enqueue graph`).
type Materials struct {
	TaskID         int64            `json:"task_id"`
	Query          string           `json:"query"`
	QueryHash      string           `json:"query_hash"`
	FromHypothesis bool             `json:"query_is_hypothesis"`
	RankedAt       *time.Time       `json:"ranked_at"` // null while there is no ranking
	EmbedModel     string           `json:"embed_model,omitempty"`
	RerankModel    string           `json:"rerank_model,omitempty"`
	Notice         string           `json:"notice,omitempty"` // baseline banner when a built-in ranked it (internal/modelcard)
	Ranking        []RankedMaterial `json:"ranking"`
	RankedQueries  []RankedQuery    `json:"ranked_queries"` // every query the task has a ranking for
	Hint           string           `json:"hint,omitempty"` // how to get a ranking when there is none
}

// RankedMaterial is one entry of a ranking: the fragment to read, its exact
// span, and the raw score of every stage next to the trust weight.
type RankedMaterial struct {
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
	Span         Span    `json:"span"`
}

// RankedQuery is one query a task has a ranking for.
type RankedQuery struct {
	Query     string    `json:"query"`
	QueryHash string    `json:"query_hash"`
	Fragments int32     `json:"fragments"`
	RankedAt  time.Time `json:"ranked_at"`
}

// Materials is the organization's task's current ranking for query ("" =
// the hypothesis).
func (s *Service) Materials(ctx context.Context, org string, taskID int64, query string) (*Materials, error) {
	task, err := s.Task(ctx, org, taskID)
	if err != nil {
		return nil, err
	}
	return s.ranking(ctx, task, query)
}

func (s *Service) ranking(ctx context.Context, task store.Task, query string) (*Materials, error) {
	st, taskID := s.st, task.ID
	m := &Materials{TaskID: taskID, Query: strings.TrimSpace(query), Ranking: []RankedMaterial{}, RankedQueries: []RankedQuery{}}
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
		m.Ranking = append(m.Ranking, RankedMaterial{Rank: r.Rank, FragmentID: r.FragmentID, FinalScore: r.FinalScore,
			RerankScore: r.RerankScore, TrustLevel: r.TrustLevel, TrustWeight: r.TrustWeight, LexicalScore: r.LexicalScore,
			Cosine: r.Cosine, Stage2Score: r.Stage2Score, Domain: r.Domain, Title: r.Title,
			Span: Span{PageID: r.PageID, PageVersionID: r.PageVersionID, StartChar: r.StartChar, EndChar: r.EndChar,
				URL: r.Url, Text: r.Text}})
	}
	queries, err := st.TaskRankingQueries(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("ranked queries of task %d: %w", taskID, err)
	}
	for _, q := range queries {
		m.RankedQueries = append(m.RankedQueries, RankedQuery{Query: q.Query, QueryHash: q.QueryHash, Fragments: q.Fragments, RankedAt: q.RankedAt})
	}
	if len(m.Ranking) == 0 {
		m.Hint = "no ranking yet; rank with: " + RerankCommand(taskID, m.QueryArg())
	}
	return m, nil
}

// QueryArg is the --query the ranking was asked for ("" for the hypothesis).
func (m *Materials) QueryArg() string {
	if m.FromHypothesis {
		return ""
	}
	return m.Query
}

// RerankCommand is the shell command that enqueues the ranking of query
// ("" = the hypothesis) for a task.
func RerankCommand(taskID int64, query string) string {
	args := struct {
		TaskID int64  `json:"task_id"`
		Query  string `json:"query,omitempty"`
	}{taskID, strings.TrimSpace(query)}
	b, _ := json.Marshal(args) // cannot fail: an int and a string
	return "enqueue job --kind rerank --args '" + strings.ReplaceAll(string(b), "'", `'\''`) + "'"
}
