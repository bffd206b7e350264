package jobs

import (
	"fmt"
	"slices"

	"github.com/riverqueue/river"
)

// ImplementedQueues are the queues whose kinds this version works.
var ImplementedQueues = []string{QueueTarget, QueueEmbed, QueueNLI, QueueRerank, QueueCitation, QueueMaintenance}

// AddWorkers registers the workers of every implemented kind.
func AddWorkers(workers *river.Workers, d *Deps) error {
	if err := river.AddWorkerSafely(workers, &TargetQueueWorker{Deps: d}); err != nil {
		return fmt.Errorf("register target_queue: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &EmbedWorker{Deps: d}); err != nil {
		return fmt.Errorf("register embed: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &VerifyNLIWorker{Deps: d}); err != nil {
		return fmt.Errorf("register verify_nli: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &RerankWorker{Deps: d}); err != nil {
		return fmt.Errorf("register rerank: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &CitationGraphWorker{Deps: d}); err != nil {
		return fmt.Errorf("register citation_graph: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &CleanupWorker{Deps: d}); err != nil {
		return fmt.Errorf("register cleanup: %w", err)
	}
	return nil
}

// Queues builds River's queue config for the queues this process serves,
// with the per-queue concurrency given (missing entries default to 1).
func Queues(serve []string, concurrency map[string]int) (map[string]river.QueueConfig, error) {
	out := make(map[string]river.QueueConfig, len(serve))
	for _, q := range serve {
		if !slices.Contains(AllQueues, q) {
			return nil, fmt.Errorf("unknown queue %q (want some of %v)", q, AllQueues)
		}
		if !slices.Contains(ImplementedQueues, q) {
			// Kinds of this queue land in a later version; serving it would
			// only fail its jobs. Leave them waiting for a worker that runs them.
			continue
		}
		n := concurrency[q]
		if n <= 0 {
			n = 1
		}
		out[q] = river.QueueConfig{MaxWorkers: n}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no implemented queue among %v (implemented: %v)", serve, ImplementedQueues)
	}
	return out, nil
}

// KindQueues maps every kind this version works to the queue its jobs go to.
var KindQueues = map[string]string{
	KindTargetQueue:   QueueTarget,
	KindEmbed:         QueueEmbed,
	KindVerifyNLI:     QueueNLI,
	KindRerank:        QueueRerank,
	KindCleanup:       QueueMaintenance,
	KindCitationGraph: QueueCitation,
}
