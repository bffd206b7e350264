package workers

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/rank"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// RerankWorker works rerank jobs: thin glue around internal/rank.
//
//  1. Lexical: the task's fragments matching any term of the query (Postgres
//     full text, 'english'), by ts_rank, at most LexicalTopN. Fragments of
//     BLOCKED domains (trust weight 0) are left out here, so they never
//     appear in a ranking, not even at the bottom.
//  2. Embedding: the query is embedded once; each candidate scores
//     w·lexical_norm + (1−w)·cosine with its stored embedding. Fragments not
//     yet embedded by the configured model score cosine 0: the job does not
//     wait for embed jobs (a ranking is cheap to redo; the output counts them
//     as not_embedded). The best RerankTopN go on.
//  3. Reranker: the survivors are scored in one Reranker call, because a
//     Reranker's scores are comparable within one call only (the built-in
//     BM25 draws its collection statistics from the call's documents);
//     HTTP backends split the call into batches of their own batch size,
//     (EVF_RERANK_BATCH), where scores of different batches are comparable
//     (a cross-encoder scores each pair alone). The order is rerank score × domain trust
//     weight, and the best top_k are stored.
//
// When top_k exceeds RerankTopN (or LexicalTopN), those stages keep top_k
// instead, so that a ranking of the requested length can exist. The raw
// scores of each stage and the trust weight are stored apart; claims and
// their posteriors are never read or written.
type RerankWorker struct {
	river.WorkerDefaults[jobs.RerankArgs]
	store    *store.Store
	embedder models.Embedder
	reranker models.Reranker
	cfg      RerankConfig
	logger   *slog.Logger
}

// NewRerankWorker is the rerank worker; a nil logger records nothing.
func NewRerankWorker(st *store.Store, embedder models.Embedder, reranker models.Reranker, cfg RerankConfig, log *slog.Logger) *RerankWorker {
	return &RerankWorker{store: st, embedder: embedder, reranker: reranker, cfg: cfg, logger: logger(log)}
}

// RerankOutput is recorded as the job's output: counts per stage.
type RerankOutput struct {
	QueryHash      string `json:"query_hash"`
	FromHypothesis bool   `json:"query_from_hypothesis"` // the job gave no query
	Lexical        int    `json:"lexical"`               // stage 1 candidates
	NotEmbedded    int    `json:"not_embedded"`          // of those, without an embedding for the model (cosine 0)
	Reranked       int    `json:"reranked"`              // stage 2 survivors scored by the reranker (in one call)
	Ranked         int    `json:"ranked"`                // rows of the stored ranking
	Replaced       int    `json:"replaced"`              // rows of the previous ranking removed
	Successor      bool   `json:"successor"`             // the task changed while ranking: a successor job ranks again
}

// rerankConfig fills unset sizes with the configuration's defaults; an
// all-zero configuration (Deps built without one) is the default one.
func rerankConfig(c RerankConfig) RerankConfig {
	def := RerankConfigFrom(config.Defaults())
	if c == (RerankConfig{}) {
		return def
	}
	if c.LexicalTopN <= 0 {
		c.LexicalTopN = def.LexicalTopN
	}
	if c.RerankTopN <= 0 {
		c.RerankTopN = def.RerankTopN
	}
	if c.TopK <= 0 {
		c.TopK = def.TopK
	}
	return c
}

// Work ranks and stores the ranking together with the job's completion.
func (w *RerankWorker) Work(ctx context.Context, job *river.Job[jobs.RerankArgs]) error {
	if w.reranker == nil {
		return fmt.Errorf("rerank: no reranker configured (RerankWorker.Reranker is nil)")
	}
	cfg := rerankConfig(w.cfg)
	task, err := w.store.ExistingTask(ctx, job.Args.TaskID)
	if err != nil {
		return err
	}
	out := RerankOutput{}
	query := strings.TrimSpace(job.Args.Query)
	if query == "" {
		query, out.FromHypothesis = task.Hypothesis, true
	}
	out.QueryHash = rank.QueryHash(query)
	topK := job.Args.TopK
	if topK == 0 {
		topK = cfg.TopK
	}
	shortN := max(cfg.RerankTopN, topK)
	lexN := max(cfg.LexicalTopN, shortN)

	ranked, err := w.score(ctx, job, query, lexN, shortN, topK, cfg, &out)
	if err != nil {
		return err
	}
	err = w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		res, err := q.WriteRanking(ctx, job.Args.TaskID, out.QueryHash,
			rankingRows(job.Args.TaskID, query, out.QueryHash, models.PassageModel(w.embedder), w.reranker.Model(), ranked))
		if err != nil {
			return err
		}
		out.Replaced, out.Ranked = res.Replaced, res.Stored
		out.Successor = res.Task.WorkVersion != task.WorkVersion
		if err := completeTx(ctx, tx, job, out); err != nil {
			return err
		}
		if out.Successor {
			// This job is completed in this transaction, so the unique
			// insert is not skipped as a duplicate of it.
			if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertTx(ctx, tx, job.Args, nil); err != nil {
				return fmt.Errorf("enqueue successor rerank: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store ranking of task %d: %w", job.Args.TaskID, err)
	}
	w.logger.InfoContext(ctx, "fragments ranked", slog.Int64("job_id", job.ID), slog.Int64("task_id", job.Args.TaskID),
		slog.Int("lexical", out.Lexical), slog.Int("reranked", out.Reranked), slog.Int("ranked", out.Ranked),
		slog.Bool("successor", out.Successor))
	return nil
}

// score reads the candidates and runs the three stages.
func (w *RerankWorker) score(ctx context.Context, job *river.Job[jobs.RerankArgs], query string, lexN, shortN, topK int,
	cfg RerankConfig, out *RerankOutput) ([]rank.Entry, error) {
	rows, err := w.store.RankingCandidates(ctx, store.RankingCandidatesParams{
		TaskID: job.Args.TaskID, Query: query, EmbedModel: models.PassageModel(w.embedder),
		ExcludedLevels: rank.ExcludedLevels(), MaxCandidates: int32(lexN)})
	if err != nil {
		return nil, fmt.Errorf("read ranking candidates: %w", err)
	}
	out.Lexical = len(rows)
	if len(rows) == 0 {
		return []rank.Entry{}, nil
	}
	cands := make([]rank.Candidate, len(rows))
	texts := make(map[int64]string, len(rows))
	for i, r := range rows {
		vec, err := store.DecodeVector(r.Embedding, nil)
		if err != nil {
			return nil, fmt.Errorf("fragment %d: %w", r.ID, err)
		}
		cands[i] = rank.Candidate{FragmentID: r.ID, Lexical: r.LexicalScore, Embedding: vec, TrustLevel: r.TrustLevel}
		texts[r.ID] = r.Text
		if vec == nil {
			out.NotEmbedded++
		}
	}
	vecs, err := w.embedder.Embed(ctx, []string{query})
	if err == nil {
		err = checkVectors(vecs, 1, w.embedder.Dim())
	}
	if err != nil {
		return nil, modelErr(err, fmt.Sprintf("rerank: embed the query with %s", w.embedder.Model()))
	}
	short, err := rank.Shortlist(cands, vecs[0], cfg.LexicalWeight, shortN)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	out.Reranked = len(short)
	docs := make([]string, len(short))
	for i, e := range short {
		docs[i] = texts[e.FragmentID]
	}
	// One call for the whole shortlist: a Reranker's scores are comparable
	// within one call only (the built-in BM25 takes its collection statistics
	// from the call's documents); HTTP backends batch internally.
	scores, err := w.reranker.Rerank(ctx, query, docs)
	if err == nil {
		err = checkScores(scores, len(docs))
	}
	if err != nil {
		return nil, modelErr(err, fmt.Sprintf("rerank: rerank %d fragments with %s", len(docs), w.reranker.Model()))
	}
	ranked, err := rank.Finish(short, scores, topK)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	return ranked, nil
}

// checkScores rejects a reranker answer with the wrong number of scores or
// a non-finite score.
func checkScores(scores []float64, n int) error {
	if len(scores) != n {
		return fmt.Errorf("%w: %d scores for %d documents", remoteerr.ErrBadResponse, len(scores), n)
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("%w: score %d is %v", remoteerr.ErrBadResponse, i, s)
		}
	}
	return nil
}

// rankingRows turns a ranking into the column arrays of InsertTaskRanking.
func rankingRows(taskID int64, query, queryHash, embedModel, rerankModel string, ranked []rank.Entry) store.InsertTaskRankingParams {
	p := store.InsertTaskRankingParams{TaskID: taskID, QueryHash: queryHash, Query: query,
		EmbedModel: embedModel, RerankModel: rerankModel}
	for _, e := range ranked {
		p.Ranks = append(p.Ranks, int32(e.Rank))
		p.FragmentIds = append(p.FragmentIds, e.FragmentID)
		p.LexicalScores = append(p.LexicalScores, e.Lexical)
		p.Cosines = append(p.Cosines, e.Cosine)
		p.Stage2Scores = append(p.Stage2Scores, e.Stage2)
		p.RerankScores = append(p.RerankScores, e.Rerank)
		p.TrustLevels = append(p.TrustLevels, e.TrustLevel)
		p.TrustWeights = append(p.TrustWeights, e.TrustWeight)
		p.FinalScores = append(p.FinalScores, e.Final)
	}
	return p
}
