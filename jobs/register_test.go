package jobs

import (
	"testing"

	"github.com/riverqueue/river"
)

func TestKindQueuesMatchInsertOpts(t *testing.T) {
	t.Parallel()
	for _, args := range []interface {
		river.JobArgs
		river.JobArgsWithInsertOpts
	}{TargetQueueArgs{}, EmbedArgs{}, VerifyNLIArgs{}, RerankArgs{}, CleanupArgs{}, CitationGraphArgs{}, RecheckArgs{}} {
		if got, want := KindQueues[args.Kind()], args.InsertOpts().Queue; got != want {
			t.Errorf("KindQueues[%s] = %q, its InsertOpts say %q", args.Kind(), got, want)
		}
	}
	if len(KindQueues) != 7 {
		t.Errorf("KindQueues has %d kinds, this test checks 7", len(KindQueues))
	}
}
