package workers

import (
	"fmt"
	"slices"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// AddWorkers registers the workers of every implemented kind.
func AddWorkers(workers *river.Workers, d *Deps) error {
	if err := river.AddWorkerSafely(workers, &TargetQueueWorker{Store: d.Store, Fetcher: d.Fetcher, Embedder: d.Embedder, LLM: d.LLM,
		Papers: d.Papers, Scholar: d.Scholar, Search: d.Search, SearchResults: d.SearchResults,
		Extract: d.Extract, Embed: d.Embed, Metrics: d.Metrics, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register target_queue: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &EmbedWorker{Store: d.Store, Embedder: d.Embedder, Embed: d.Embed, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register embed: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &VerifyNLIWorker{Store: d.Store, Embedder: d.Embedder, NLI: d.NLI,
		Recall: d.Recaller(),
		Verify: d.Verify, Metrics: d.Metrics, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register verify_nli: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &RerankWorker{Store: d.Store, Embedder: d.Embedder, Reranker: d.Reranker, Rerank: d.Rerank, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register rerank: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &CitationGraphWorker{Store: d.Store, Citations: d.Citations, Embedder: d.Embedder, LLM: d.LLM,
		Extract: d.Extract, Embed: d.Embed, Metrics: d.Metrics, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register citation_graph: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &CleanupWorker{Store: d.Store, Logger: d.Logger}); err != nil {
		return fmt.Errorf("register cleanup: %w", err)
	}
	return nil
}

// Queues builds River's queue config for the queues this process serves,
// with the per-queue concurrency given (missing entries default to 1).
func Queues(serve []string, concurrency map[string]int) (map[string]river.QueueConfig, error) {
	out := make(map[string]river.QueueConfig, len(serve))
	for _, q := range serve {
		if !slices.Contains(jobs.AllQueues, q) {
			return nil, fmt.Errorf("unknown queue %q (want some of %v)", q, jobs.AllQueues)
		}
		n := concurrency[q]
		if n <= 0 {
			n = 1
		}
		out[q] = river.QueueConfig{MaxWorkers: n}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no queue to serve (want some of %v)", jobs.AllQueues)
	}
	return out, nil
}
