package workers

import (
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// Set is one worker of every kind, each built by its constructor with
// what it uses.
type Set struct {
	TargetQueue   *TargetQueueWorker
	Embed         *EmbedWorker
	VerifyNLI     *VerifyNLIWorker
	Rerank        *RerankWorker
	CitationGraph *CitationGraphWorker
	Cleanup       *CleanupWorker
	Recheck       *RecheckWorker
}

// Add registers the set's workers.
func (s Set) Add(workers *river.Workers) error {
	for _, r := range s.registrations() {
		if err := r.add(workers); err != nil {
			return fmt.Errorf("register workers: %w", err)
		}
	}
	return nil
}

// registration is one worker Add registers, with the kind it works.
type registration struct {
	kind string
	add  func(*river.Workers) error
}

func register[T river.JobArgs](w river.Worker[T]) registration {
	var args T
	return registration{kind: args.Kind(), add: func(ws *river.Workers) error { return river.AddWorkerSafely(ws, w) }}
}

// registrations are the set's workers, one per kind of jobs.Kinds
// (TestEveryKindHasOneWorker).
func (s Set) registrations() []registration {
	return []registration{
		register(s.TargetQueue),
		register(s.Embed),
		register(s.VerifyNLI),
		register(s.Rerank),
		register(s.CitationGraph),
		register(s.Cleanup),
		register(s.Recheck),
	}
}

// FetchCooldown is the least time between two fetches of a queue of n
// slots: n ms, from 5 to 50 ms. River fetches at most n jobs a cooldown, so
// a verify_nli process of 2 slots under the client's 50 ms could start no
// more than 40 jobs a second however fast they ran (make bench measures the
// no-op ceiling); at 5 ms it is 400, while a queue of 50 slots or more keeps
// 50 ms (a fetch a job would cost more than the jobs).
func FetchCooldown(n int) time.Duration {
	return min(max(time.Duration(n)*time.Millisecond, 5*time.Millisecond), 50*time.Millisecond)
}

// Queues builds River's queue config for the queues this process serves,
// with the per-queue concurrency given (missing entries default to 1) and
// a fetch cooldown of its own (FetchCooldown).
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
		out[q] = river.QueueConfig{MaxWorkers: n, FetchCooldown: FetchCooldown(n)}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no queue to serve (want some of %v)", jobs.AllQueues)
	}
	return out, nil
}
