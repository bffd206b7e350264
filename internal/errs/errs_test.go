package errs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
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
		err  error
		exit int
	}{
		{nil, ExitOK},
		{missing, ExitFailure},
		{stopped, ExitFailure},
		{fmt.Errorf("page 9: %w", ErrPageNotFound), ExitFailure},
		{fmt.Errorf("field \"depth\": %w", ErrBadInput), ExitUsage},
		{errors.New("connection refused"), ExitFailure},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.exit {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.exit)
		}
	}
}

// TestDataRefused reads Postgres's SQLSTATE from pgx's own error type:
// data exceptions (class 22) and program limits (class 54) are permanent,
// other database errors are not.
func TestDataRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"22021", true}, // invalid byte sequence (a NUL in text)
		{"22001", true}, // string data right truncation
		{"54000", true}, // string is too long for tsvector
		{"54001", true}, // statement too complex
		{"40P01", false}, {"57014", false}, {"23505", false}, {"08006", false},
	} {
		err := fmt.Errorf("write: %w", &pgconn.PgError{Code: tc.code, Message: "x"})
		if DataRefused(err) != tc.want {
			t.Errorf("SQLSTATE %s: DataRefused %v, want %v", tc.code, DataRefused(err), tc.want)
		}
	}
	if DataRefused(errors.New("string is too long for tsvector")) {
		t.Error("an error without a SQLSTATE is read as refused data")
	}
}
