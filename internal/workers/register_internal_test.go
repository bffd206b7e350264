package workers

import (
	"slices"
	"testing"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestEveryKindHasOneWorker checks Set against the contract: every
// kind of jobs.Kinds has exactly one worker, and no worker works a kind the
// contract does not declare.
func TestEveryKindHasOneWorker(t *testing.T) {
	t.Parallel()
	count := map[string]int{}
	for _, r := range (Set{}).registrations() {
		count[r.kind]++
	}
	for _, kind := range jobs.Kinds() {
		if count[kind] != 1 {
			t.Errorf("kind %s has %d workers, want 1", kind, count[kind])
		}
	}
	for kind := range count {
		if !slices.Contains(jobs.Kinds(), kind) {
			t.Errorf("a worker works kind %s, which jobs does not declare", kind)
		}
	}
	set := Set{TargetQueue: &TargetQueueWorker{}, Embed: &EmbedWorker{}, VerifyNLI: &VerifyNLIWorker{}, Rerank: &RerankWorker{},
		CitationGraph: &CitationGraphWorker{}, Cleanup: &CleanupWorker{}}
	if err := set.Add(river.NewWorkers()); err != nil {
		t.Fatalf("Add: %v", err)
	}
}
