package workers

import (
	"testing"

	"github.com/evidencefleet/evidencefleet/store"
)

// TestSettledStatesKeepOnlyFullyEmbeddedTasksAtTheirVersion: a state is
// remembered only when every fragment was embedded, is given back only at
// the same work_version and embedding model, and the memory is bounded.
func TestSettledStatesKeepOnlyFullyEmbeddedTasksAtTheirVersion(t *testing.T) {
	t.Parallel()
	var s settledStates
	s.keep(1, "m", store.TaskVerifyStateRow{WorkVersion: 3, Fragments: 10, NotEmbedded: 2})
	if _, ok := s.get(1, "m", 3); ok {
		t.Fatal("a task with fragments still to embed was remembered")
	}
	settled := store.TaskVerifyStateRow{WorkVersion: 4, Fragments: 10}
	s.keep(1, "m", settled)
	if got, ok := s.get(1, "m", 4); !ok || got != settled {
		t.Fatalf("get(1, m, 4) = %+v, %v; want %+v, true", got, ok, settled)
	}
	for _, c := range []struct {
		task    int64
		model   string
		version int64
	}{{1, "m", 5}, {1, "other", 4}, {2, "m", 4}} {
		if _, ok := s.get(c.task, c.model, c.version); ok {
			t.Errorf("get(%d, %s, %d) found a state kept for (1, m, 4)", c.task, c.model, c.version)
		}
	}
	for id := range int64(2 * maxSettledStates) {
		s.keep(id+10, "m", settled)
	}
	if n := len(s.states); n > maxSettledStates {
		t.Fatalf("%d states kept, bound %d", n, maxSettledStates)
	}
}
