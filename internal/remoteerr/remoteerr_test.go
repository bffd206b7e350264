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
		// A carrier that names no wait (a failure marked with its row of
		// the error table) does not hide its cause's: the first positive
		// hint in the tree counts.
		{"outer zero hint", &hinted{&hinted{remoteerr.ErrUnavailable, time.Minute}, 0}, time.Minute, true},
		{"outer hint first", &hinted{&hinted{remoteerr.ErrUnavailable, time.Minute}, time.Second}, time.Second, true},
		{"joined", errors.Join(errors.New("x"), &hinted{remoteerr.ErrUnavailable, time.Hour}), time.Hour, true},
	}
	for _, tt := range tests {
		got, ok := remoteerr.RetryAfter(tt.err)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: RetryAfter = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"17", 17 * time.Second, true},
		{" 5 ", 5 * time.Second, true},
		{"Sat, 01 Mar 2025 12:00:42 GMT", 42 * time.Second, true},
		{"Saturday, 01-Mar-25 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Mar  1 12:00:09 2025", 9 * time.Second, true},     // ANSI C
		{"Sat, 01 Mar 2025 11:00:00 GMT", 0, true},              // in the past
		{"Mon, 01 Mar 2125 12:00:00 GMT", remoteerr.MaxRetryAfter, true},
		{"86401", remoteerr.MaxRetryAfter, true},
		{"999999999999999999999999", remoteerr.MaxRetryAfter, true},
		{"-3", 0, false},
		{"+3", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := remoteerr.ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
