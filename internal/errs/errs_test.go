package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestVocabulary(t *testing.T) {
	t.Parallel()
	missing := fmt.Errorf("lock: %w", Task(7, ErrTaskNotFound))
	if missing.Error() != "lock: task 7 does not exist" {
		t.Errorf("message %q", missing)
	}
	if !errors.Is(missing, ErrTaskNotFound) || errors.Is(missing, ErrTaskStopped) {
		t.Error("a missing task is not ErrTaskNotFound only")
	}
	stopped := Task(3, ErrTaskStopped)
	if stopped.Error() != "task 3 is stopped" {
		t.Errorf("message %q", stopped)
	}
	tests := []struct {
		err       error
		permanent bool
		exit      int
	}{
		{nil, false, ExitOK},
		{missing, true, ExitFailure},
		{stopped, true, ExitFailure},
		{fmt.Errorf("page 9: %w", ErrPageNotFound), true, ExitFailure},
		{fmt.Errorf("field \"depth\": %w", ErrBadInput), true, ExitUsage},
		{errors.New("connection refused"), false, ExitFailure},
	}
	for _, tt := range tests {
		if got := Permanent(tt.err); got != tt.permanent {
			t.Errorf("Permanent(%v) = %v, want %v", tt.err, got, tt.permanent)
		}
		if got := ExitCode(tt.err); got != tt.exit {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.exit)
		}
	}
}
