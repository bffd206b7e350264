package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/ml"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// retrieval times verify_nli's candidate retrieval for one claim (stage 1
// full-text recall in the task, the candidates' embeddings read, cosine
// ranking and pair selection) as the graph grows: the measured task keeps
// RetrievalTaskFragments fragments while other tasks' pages fill the graph
// to each size.
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
	st := store.NewStore(pool)
	verify := jobs.DefaultVerifyConfig(models.MinSimilarity)
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
		claimTexts := make([]string, h.opts.RetrievalQueries)
		for q := range claimTexts {
			claimTexts[q] = sp.claim(rng.IntN(claims))
		}
		lat := make([]float64, 0, len(claimTexts))
		for q, text := range claimTexts {
			start := time.Now()
			if _, err := retrieveOne(ctx, st, models.Embedder, verify, task.ID, int64(q+1), text); err != nil {
				return err
			}
			if q >= 20 || len(claimTexts) <= 20 { // the first 20 warm the caches
				lat = append(lat, ms(time.Since(start)))
			}
		}
		label := fmt.Sprintf("graph of %d fragments", graph)
		h.add(sec, label+": p50", lat, "ms", "")
		h.add(sec, label+": p95", []float64{quantile(lat, 0.95)}, "ms", "")
		h.add(sec, label+": p99", []float64{quantile(lat, 0.99)}, "ms", "")
		h.logf("retrieval at %d fragments: p50 %.2f ms, p95 %.2f ms", graph, median(lat), quantile(lat, 0.95))
	}
	return nil
}

// retrieveOne is verify_nli's candidate path for one claim, without the NLI.
func retrieveOne(ctx context.Context, st *store.Store, emb ml.Embedder, cfg jobs.VerifyConfig, taskID, claimID int64, text string) (int, error) {
	recalled, err := st.RecallCandidates(ctx, taskID, []store.ClaimQuery{{ClaimID: claimID, Text: text}}, cfg.Recall(), emb.Model())
	if err != nil {
		return 0, err
	}
	ids := recalled[claimID]
	if len(ids) == 0 {
		return 0, nil
	}
	details, err := st.CandidateFragmentDetails(ctx, ids)
	if err != nil {
		return 0, fmt.Errorf("candidate details: %w", err)
	}
	vecs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return 0, err
	}
	cands := make([]evidence.Candidate, len(details))
	for i, d := range details {
		cands[i] = evidence.Candidate{FragmentID: d.ID, Domain: d.Domain, Similarity: ml.Cosine(vecs[0], d.Embedding)}
	}
	sel, _ := evidence.SelectPairs(cands, func(int64) bool { return false }, evidence.SelectLimits{
		MinSimilarity: cfg.MinSimilarity, TopK: cfg.TopK, MaxDomains: cfg.MaxDomains, MaxPairs: cfg.MaxPairsPerClaim})
	return len(sel), nil
}
