package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Error is the error every failed request returns. It wraps one of
// remoteerr.ErrUnavailable, remoteerr.ErrRejected, remoteerr.ErrBadResponse or,
// when the caller's context ended, the context's error.
type Error struct {
	Backend, Capability string
	Path                string // URL path of the request
	Status              int    // HTTP status of the last answer; 0 when there was none
	Attempts            int    // HTTP attempts made
	Reason              string // what went wrong, e.g. "circuit open", "timeout", "status 503"
	Message             string // ≤200-byte excerpt of the error body or the backend's error message
	Err                 error  // the sentinel or context error
	// RetryIn, when positive, is when asking again may succeed: the open
	// breaker's remaining cooldown, or a Retry-After longer than the client
	// waits by itself.
	RetryIn time.Duration
}

// RetryAfter reports Error.RetryIn, so callers that only see an error (a
// job deciding how long to wait) can honour it (remoteerr.RetryAfter).
func (e *Error) RetryAfter() time.Duration { return e.RetryIn }

var _ remoteerr.RetryAfterer = (*Error)(nil)

// Error names backend, capability, path, the sentinel, the reason, status,
// attempts and the body excerpt.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s: %v", e.Backend, e.Capability, e.Path, e.Err)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Status != 0 && !strings.Contains(e.Reason, strconv.Itoa(e.Status)) {
		fmt.Fprintf(&b, " (status %d)", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %q", e.Message)
	}
	return b.String()
}

// Unwrap returns the wrapped sentinel or context error.
func (e *Error) Unwrap() error { return e.Err }

// ErrorMessage extracts a backend's error message from an error body: TEI's
// {"error": "...", "error_type": "..."}, OpenAI's {"error": {"message": ...}},
// vLLM's {"message": ...} and FastAPI's {"detail": ...}; any other body is
// returned as text. The result is at most 200 bytes of valid UTF-8.
func ErrorMessage(body []byte) string {
	var v struct {
		Error     json.RawMessage `json:"error"`
		ErrorType string          `json:"error_type"`
		Message   string          `json:"message"`
		Detail    json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
			if v.ErrorType != "" {
				msg += " (" + v.ErrorType + ")"
			}
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
			if obj.Type != "" {
				msg += " (" + obj.Type + ")"
			}
		case v.Message != "":
			msg = v.Message
		case len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(bytes.TrimSpace(body))
	}
	return Snippet(msg, snippetBytes)
}

// Snippet cuts s to at most n bytes without splitting a UTF-8 sequence,
// marking a cut with "…" (counted in n), and replaces invalid UTF-8.
func Snippet(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut := n - len(ell)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}

// shortNetErr names a transport error without the full URL (the path is in
// the Error already).
func shortNetErr(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	return Snippet(err.Error(), snippetBytes)
}
