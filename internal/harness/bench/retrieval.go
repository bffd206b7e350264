package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	embedmodels "github.com/evidencefleet/evidencefleet/internal/models"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/store"
)

// retrieval times verify_nli's candidate retrieval for one claim (stage 1
// recall in the task, stage 2 cosine ranking and pair selection, the claim's
// embedding included) as the graph grows: the measured task keeps
// RetrievalTaskFragments fragments while other tasks' pages fill the graph
// to each size. Both paths of workers.Recaller.Candidates are timed: the in-memory
// task index (warm, and the one-off load per task state) and Postgres
// full-text search (tasks over the index budget).
func (h *harness) retrieval(ctx context.Context) error {
	if len(h.opts.RetrievalSizes) == 0 {
		return nil
	}
	env, err := h.synthEnv(ctx)
	if err != nil {
		return err
	}
	defer env.done()
	pool, sp, models := env.pool, env.sentences, env.models
	taskFrags := min(h.opts.RetrievalTaskFragments, h.opts.RetrievalSizes[0])
	claims := max(1, taskFrags/25)
	task, err := loadTask(ctx, pool, models.Embedder, sp, taskSpec{
		Claims: claims, Fragments: taskFrags, Related: 20, Domains: 40, FragsPerPage: 20, DomainPrefix: "r", Seed: 2})
	if err != nil {
		return err
	}
	deps := &retrievalDeps{Store: store.NewStore(pool), Embedder: models.Embedder, Verify: workers.VerifyConfigFrom(config.Defaults(), models.MinSimilarity)}
	graph := task.Fragments
	sec := fmt.Sprintf("candidate retrieval per claim (task of %d fragments in a growing graph)", task.Fragments)
	for i, size := range h.opts.RetrievalSizes {
		if size > graph {
			begin := time.Now()
			for graph < size {
				chunk := min(size-graph, 100000)
				other, err := loadTask(ctx, pool, models.Embedder, sp, taskSpec{Fragments: chunk, Domains: 200,
					FragsPerPage: 20, DomainPrefix: fmt.Sprintf("g%d-", graph), Seed: uint64(graph) + 3})
				if err != nil {
					return err
				}
				graph += other.Fragments
				h.logf("retrieval: graph at %d fragments (%.0fs)", graph, time.Since(begin).Seconds())
			}
		}
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		texts := make([]string, h.opts.RetrievalQueries)
		for q := range texts {
			texts[q] = sp.claim(rng.IntN(claims))
		}
		lexemes, err := claimLexemes(ctx, pool, texts)
		if err != nil {
			return err
		}
		state, err := deps.Store.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: task.ID, EmbedModel: embedmodels.PassageModel(models.Embedder)})
		if err != nil {
			return fmt.Errorf("task state: %w", err)
		}
		label := fmt.Sprintf("graph of %d fragments", graph)

		// The in-memory index: one load per task state, then warm recalls.
		var loads []float64
		for range 3 {
			deps.TaskIndex = taskindex.NewCache(1 << 30)
			start := time.Now()
			if _, err := retrieveOne(ctx, deps, deps.Recaller(), state, task.ID, 1, texts[0], lexemes[0]); err != nil {
				return err
			}
			loads = append(loads, ms(time.Since(start)))
		}
		h.add(sec, label+": task index load (once per task state)", loads, "ms", "")
		lat, err := timeRetrievals(ctx, deps, state, task.ID, texts, lexemes)
		if err != nil {
			return err
		}
		h.add(sec, label+": in memory p50", lat, "ms", "")
		h.add(sec, label+": in memory p95", []float64{quantile(lat, 0.95)}, "ms", "")
		h.add(sec, label+": in memory p99", []float64{quantile(lat, 0.99)}, "ms", "")
		h.logf("retrieval at %d fragments: index load %.1f ms, in memory p50 %.3f ms, p95 %.3f ms",
			graph, median(loads), median(lat), quantile(lat, 0.95))

		// Postgres full-text search, for tasks over the index budget.
		deps.TaskIndex = nil
		sqlQueries := texts[:min(len(texts), 100)]
		lat, err = timeRetrievals(ctx, deps, state, task.ID, sqlQueries, lexemes)
		if err != nil {
			return err
		}
		h.add(sec, label+": Postgres FTS p50", lat, "ms", "")
		h.add(sec, label+": Postgres FTS p95", []float64{quantile(lat, 0.95)}, "ms", "")
		h.add(sec, label+": Postgres FTS p99", []float64{quantile(lat, 0.99)}, "ms", "")
		h.logf("retrieval at %d fragments: Postgres p50 %.2f ms, p95 %.2f ms", graph, median(lat), quantile(lat, 0.95))

		// The recall statement alone, one claim a call, both ways a task
		// recalls through its own fragments, in turns.
		if store.ChooseRecallPath(int64(task.Fragments), int64(graph)) == store.RecallThroughTask {
			terms, read, err := timeRecallStatements(ctx, deps.Store, task.ID, sqlQueries, deps.Verify.Recall(), embedmodels.PassageModel(models.Embedder))
			if err != nil {
				return err
			}
			h.add(sec, label+": recall statement, one claim, term index p50", terms, "ms", "")
			h.add(sec, label+": recall statement, one claim, term index p95", []float64{quantile(terms, 0.95)}, "ms", "")
			h.add(sec, label+": recall statement, one claim, reading the task p50", read, "ms", "")
			h.add(sec, label+": recall statement, one claim, reading the task p95", []float64{quantile(read, 0.95)}, "ms", "")
			h.logf("retrieval at %d fragments: recall statement p50/p95, term index %.2f/%.2f ms, reading the task %.2f/%.2f ms",
				graph, median(terms), quantile(terms, 0.95), median(read), quantile(read, 0.95))
			var perFragment float64
			if err := pool.QueryRow(ctx, `SELECT pg_total_relation_size('task_fragment_terms')::float8 / greatest(count(*), 1) FROM task_fragment_terms`).Scan(&perFragment); err != nil {
				return fmt.Errorf("term index size: %w", err)
			}
			h.add(sec, label+": the task's term index in Postgres, per fragment (rows and GIN index)", []float64{perFragment}, "bytes", "")
		}

		// As verify_nli calls it: a shard's claims at once.
		perClaim, err := timeShardRetrievals(ctx, deps, state, task.ID, texts, lexemes, retrievalShard)
		if err != nil {
			return err
		}
		h.add(sec, label+fmt.Sprintf(": Postgres FTS, %d claims a call, per claim p50", retrievalShard), perClaim, "ms", "")
		h.add(sec, label+fmt.Sprintf(": Postgres FTS, %d claims a call, per claim, slowest call", retrievalShard), []float64{quantile(perClaim, 1)}, "ms", "")
		h.logf("retrieval at %d fragments: Postgres, %d claims a call: %.2f ms a claim", graph, retrievalShard, median(perClaim))
	}
	return nil
}

// timeRecallStatements times store.RecallCandidates for each text alone,
// through the task's term index and reading the task, in turns; the
// first 20 of each warm the caches (and make the term index).
func timeRecallStatements(ctx context.Context, st *store.Store, taskID int64, texts []string, lim store.Recall, model string) (terms, read []float64, err error) {
	for q, text := range texts {
		claim := []store.ClaimQuery{{ClaimID: int64(q + 1), Text: text}}
		for _, path := range []store.RecallPath{store.RecallThroughTask, store.RecallReadingTask} {
			start := time.Now()
			if _, err := st.RecallCandidates(ctx, taskID, claim, lim, model, path); err != nil {
				return nil, nil, err
			}
			if q < 20 && len(texts) > 20 {
				continue
			}
			if path == store.RecallThroughTask {
				terms = append(terms, ms(time.Since(start)))
			} else {
				read = append(read, ms(time.Since(start)))
			}
		}
	}
	return terms, read, nil
}

// retrievalDeps are what verify_nli's recall uses; TaskIndex nil recalls
// through Postgres.
type retrievalDeps struct {
	Store     *store.Store
	Embedder  embedmodels.Embedder
	Verify    workers.VerifyConfig
	TaskIndex *taskindex.Cache
}

// Recaller is the recall of these dependencies, as a worker holds it.
func (d *retrievalDeps) Recaller() *workers.Recaller {
	return workers.NewRecaller(d.Store, d.Embedder, d.TaskIndex, d.Verify.Recall(), nil)
}

// timeRetrievals times retrieveOne for each text; the first 20 warm the caches.
func timeRetrievals(ctx context.Context, deps *retrievalDeps, state store.TaskVerifyStateRow, taskID int64, texts []string, lexemes [][]string) ([]float64, error) {
	recall := deps.Recaller() // as a worker holds it: built once
	lat := make([]float64, 0, len(texts))
	for q, text := range texts {
		start := time.Now()
		if _, err := retrieveOne(ctx, deps, recall, state, taskID, int64(q+1), text, lexemes[q]); err != nil {
			return nil, err
		}
		if q >= 20 || len(texts) <= 20 {
			lat = append(lat, ms(time.Since(start)))
		}
	}
	return lat, nil
}

// retrievalShard is the claims of one recall call in the shard rows: a
// verify_nli shard's (EVF_VERIFY_SHARD_CLAIMS).
const retrievalShard = 64

// timeShardRetrievals recalls texts shard claims at a time (at most 5
// calls, after one to warm the caches) and returns each call's time per
// claim.
func timeShardRetrievals(ctx context.Context, deps *retrievalDeps, state store.TaskVerifyStateRow, taskID int64, texts []string, lexemes [][]string, shard int) ([]float64, error) {
	recall := deps.Recaller()
	var out []float64
	for call := 0; call <= 5; call++ {
		var claims []workers.RecallClaim
		for i := range shard {
			q := (call*shard + i) % len(texts)
			vecs, err := deps.Embedder.Embed(ctx, []string{texts[q]})
			if err != nil {
				return nil, err
			}
			claims = append(claims, workers.RecallClaim{ID: int64(i + 1), Text: texts[q], Lexemes: lexemes[q], Vec: vecs[0]})
		}
		start := time.Now()
		if _, err := recall.Candidates(ctx, taskID, state, claims); err != nil {
			return nil, err
		}
		if call > 0 {
			out = append(out, ms(time.Since(start))/float64(shard))
		}
	}
	return out, nil
}

// claimLexemes is to_tsvector of each text, as verify_nli reads it with the claims.
func claimLexemes(ctx context.Context, pool *pgxpool.Pool, texts []string) ([][]string, error) {
	rows, err := pool.Query(ctx, `SELECT tsvector_to_array(to_tsvector('english'::regconfig, t)) FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n`, texts)
	if err != nil {
		return nil, fmt.Errorf("claim lexemes: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[[]string])
	if err != nil {
		return nil, fmt.Errorf("claim lexemes: %w", err)
	}
	return out, nil
}

// retrieveOne is verify_nli's candidate path for one claim, without the NLI.
func retrieveOne(ctx context.Context, deps *retrievalDeps, recall *workers.Recaller, state store.TaskVerifyStateRow, taskID, claimID int64, text string, lexemes []string) (int, error) {
	vecs, err := deps.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return 0, err
	}
	cands, err := recall.Candidates(ctx, taskID, state, []workers.RecallClaim{{ID: claimID, Text: text, Lexemes: lexemes, Vec: vecs[0]}})
	if err != nil {
		return 0, err
	}
	cfg := deps.Verify
	sel, _ := evidence.SelectPairs(cands[claimID], func(int64) bool { return false }, evidence.SelectLimits{
		MinSimilarity: cfg.MinSimilarity, TopK: cfg.TopK, MaxDomains: cfg.MaxDomains, MaxPairs: cfg.MaxPairsPerClaim})
	return len(sel), nil
}
