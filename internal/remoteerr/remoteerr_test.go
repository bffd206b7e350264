package remoteerr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// hinted is an error carrying a retry hint, as httpx.Error does.
type hinted struct {
	err   error
	after time.Duration
}

func (h *hinted) Error() string             { return h.err.Error() }
func (h *hinted) Unwrap() error             { return h.err }
func (h *hinted) RetryAfter() time.Duration { return h.after }

func TestKindsAreDistinct(t *testing.T) {
	t.Parallel()
	kinds := []error{remoteerr.ErrUnavailable, remoteerr.ErrBadResponse, remoteerr.ErrRejected, remoteerr.ErrNotFound}
	for i, a := range kinds {
		for j, b := range kinds {
			if (i == j) != errors.Is(a, b) {
				t.Errorf("errors.Is(%v, %v) = %v", a, b, errors.Is(a, b))
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want time.Duration
		ok   bool
	}{
		{"nil", nil, 0, false},
		{"no hint", fmt.Errorf("embed: %w", remoteerr.ErrUnavailable), 0, false},
		{"hint", &hinted{remoteerr.ErrUnavailable, 30 * time.Second}, 30 * time.Second, true},
		{"wrapped hint", fmt.Errorf("embed: %w", &hinted{remoteerr.ErrUnavailable, time.Minute}), time.Minute, true},
		{"zero hint", &hinted{remoteerr.ErrUnavailable, 0}, 0, false},
		{"negative hint", &hinted{remoteerr.ErrUnavailable, -time.Second}, 0, false},
		// The first carrier in the chain decides, as errors.As finds it.
		{"outer zero hint", &hinted{&hinted{remoteerr.ErrUnavailable, time.Minute}, 0}, 0, false},
	}
	for _, tt := range tests {
		got, ok := remoteerr.RetryAfter(tt.err)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: RetryAfter = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
