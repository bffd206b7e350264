package workers

import (
	"sync"

	"github.com/evidencefleet/evidencefleet/store"
)

// settledStates remembers, per task and embedding model, the task's state
// at a work_version where TaskVerifyState saw every fragment embedded. At
// that version it stays so: the fragments a task reaches change only with
// pages joining or leaving it, which bump work_version (or stop it), and an
// embedding once stored is not taken away. A verify_nli of the task at the
// same version then reads the task's row (store.TaskWorkVersion) instead of
// counting its fragments, which costs a scan of all of them. A state with
// fragments still to embed is not kept: another task's embed job may embed
// a shared page's fragments without moving this task's version.
//
// The exception is a fleet whose processes embed with different models at
// once (a rolling change of EVF_EMBED_MODEL): one model's embed job
// replaces the other's vectors of a page two tasks share, and a process
// that remembers the other task as settled verifies it without them until
// its version moves.
type settledStates struct {
	mu     sync.Mutex
	states map[settledKey]store.TaskVerifyStateRow
}

type settledKey struct {
	taskID int64
	model  string
}

// maxSettledStates bounds the tasks a process remembers; past it one is
// forgotten (and counted again when next verified).
const maxSettledStates = 4096

// get returns the task's settled state at version, if known.
func (s *settledStates) get(taskID int64, model string, version int64) (store.TaskVerifyStateRow, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[settledKey{taskID, model}]
	return st, ok && st.WorkVersion == version
}

// keep remembers state when it is settled (every fragment embedded).
func (s *settledStates) keep(taskID int64, model string, state store.TaskVerifyStateRow) {
	if state.NotEmbedded != 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.states == nil {
		s.states = map[settledKey]store.TaskVerifyStateRow{}
	}
	k := settledKey{taskID, model}
	if _, ok := s.states[k]; !ok && len(s.states) >= maxSettledStates {
		for old := range s.states {
			delete(s.states, old)
			break
		}
	}
	s.states[k] = state
}
