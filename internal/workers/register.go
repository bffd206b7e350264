package workers

import (
	"fmt"
	"slices"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// AddWorkers registers the workers of every implemented kind.
func AddWorkers(workers *river.Workers, d *Deps) error {
	for _, r := range d.registrations() {
		if err := r.add(workers); err != nil {
			return fmt.Errorf("register workers: %w", err)
		}
	}
	return nil
}

// registration is one worker AddWorkers registers, with the kind it works.
type registration struct {
	kind string
	add  func(*river.Workers) error
}

func register[T river.JobArgs](w river.Worker[T]) registration {
	var args T
	return registration{kind: args.Kind(), add: func(ws *river.Workers) error { return river.AddWorkerSafely(ws, w) }}
}

// registrations are the workers of these dependencies, one per kind of
// jobs.Kinds (TestEveryKindHasOneWorker).
func (d *Deps) registrations() []registration {
	return []registration{
		register(d.TargetQueueWorker()),
		register(d.EmbedWorker()),
		register(d.VerifyNLIWorker()),
		register(d.RerankWorker()),
		register(d.CitationGraphWorker()),
		register(d.CleanupWorker()),
	}
}

// TargetQueueWorker is the target_queue worker of these dependencies.
func (d *Deps) TargetQueueWorker() *TargetQueueWorker {
	return &TargetQueueWorker{Store: d.Store, Fetcher: d.Fetcher, Embedder: d.Embedder, LLM: d.LLM,
		Papers: d.Papers, Scholar: d.Scholar, Search: d.Search, SearchResults: d.SearchResults,
		Extract: d.Extract, Embed: d.Embed, Waits: d.Waits, Policy: d.Policy, Memory: d.Memory, Metrics: d.Metrics, Logger: d.Logger}
}

// EmbedWorker is the embed worker of these dependencies.
func (d *Deps) EmbedWorker() *EmbedWorker {
	return &EmbedWorker{Store: d.Store, Embedder: d.Embedder, Embed: d.Embed, Logger: d.Logger}
}

// VerifyNLIWorker is the verify_nli worker of these dependencies.
func (d *Deps) VerifyNLIWorker() *VerifyNLIWorker {
	return NewVerifyNLIWorker(d.Store, d.Embedder, d.NLI, d.Recaller(), d.Verify, d.observer(), d.Logger)
}

// RerankWorker is the rerank worker of these dependencies.
func (d *Deps) RerankWorker() *RerankWorker {
	return &RerankWorker{Store: d.Store, Embedder: d.Embedder, Reranker: d.Reranker, Rerank: d.Rerank, Logger: d.Logger}
}

// CitationGraphWorker is the citation_graph worker of these dependencies.
func (d *Deps) CitationGraphWorker() *CitationGraphWorker {
	return &CitationGraphWorker{Store: d.Store, Citations: d.Citations, Embedder: d.Embedder, LLM: d.LLM,
		Extract: d.Extract, Embed: d.Embed, Policy: d.Policy, Metrics: d.Metrics, Logger: d.Logger}
}

// CleanupWorker is the cleanup worker of these dependencies.
func (d *Deps) CleanupWorker() *CleanupWorker {
	return &CleanupWorker{Store: d.Store, Logger: d.Logger}
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
