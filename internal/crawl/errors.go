package crawl

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Reasons carried by PermanentError and TransientError. They are short,
// stable strings, suitable as metric labels and for the pages.error column.
const (
	ReasonInvalidURL         = "invalid_url"
	ReasonBlockedAddress     = "blocked_address"
	ReasonRobotsDisallowed   = "robots_disallowed"
	ReasonHTTPStatus         = "http_status"
	ReasonUnsupportedContent = "unsupported_content_type"
	ReasonBodyTooLarge       = "body_too_large"
	ReasonTooManyRedirects   = "too_many_redirects"
	ReasonNotInArchive       = "not_in_archive"
	ReasonNetwork            = "network"
	ReasonTimeout            = "timeout"
	ReasonCanceled           = "canceled"
	ReasonRobotsUnavailable  = "robots_unavailable"
	// ReasonUnsupportedEncoding is a body in a content encoding the fetcher
	// does not decode (gzip and deflate are), or one that does not decode.
	ReasonUnsupportedEncoding = "unsupported_content_encoding"
	// ReasonRedirectURLTooLong is a redirect to a URL longer than
	// ident.MaxURLBytes (after resolving and normalising), the cap of targets.
	ReasonRedirectURLTooLong = "redirect_url_too_long"
)

// PermanentError marks a fetch failure that must not be retried: an invalid
// URL, a blocked address, a robots.txt disallow, a 4xx status other than 408
// and 429, an unsupported content type, a body that is too large or too many
// redirects.
type PermanentError struct {
	Reason string // one of the Reason* constants
	Err    error  // underlying cause, may be nil
}

// Error describes the failure, prefixed "permanent fetch error".
func (e *PermanentError) Error() string {
	if e.Err == nil {
		return "permanent fetch error: " + e.Reason
	}
	return "permanent fetch error: " + e.Reason + ": " + e.Err.Error()
}

// Unwrap returns the underlying cause.
func (e *PermanentError) Unwrap() error { return e.Err }

// Failure is the error table's row of a fetch that must not be retried:
// its target fails.
func (e *PermanentError) Failure() errs.Failure { return errs.TargetFailed }

// TransientError marks a fetch failure worth retrying later (network errors,
// timeouts, 5xx, 408, 429). Wait is set from a 429/503 Retry-After header
// when the server sent one (retryAfter), else it is zero.
type TransientError struct {
	Reason string        // one of the Reason* constants
	Wait   time.Duration // server-requested wait, 0 when none
	Err    error         // underlying cause, may be nil
}

// RetryAfter is the server's wait (remoteerr.RetryAfterer).
func (e *TransientError) RetryAfter() time.Duration { return e.Wait }

// Failure is the error table's row: a server that asked to come back
// later is busy; any other transient failure names none (an attempt).
func (e *TransientError) Failure() errs.Failure {
	if e.Wait > 0 {
		return errs.ServerBusy
	}
	return ""
}

// Error describes the failure, prefixed "transient fetch error".
func (e *TransientError) Error() string {
	var b strings.Builder
	b.WriteString("transient fetch error: ")
	b.WriteString(e.Reason)
	if e.Wait > 0 {
		b.WriteString(" (retry after ")
		b.WriteString(e.Wait.String())
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *TransientError) Unwrap() error { return e.Err }

// IsPermanent reports whether err (or an error it wraps) is a *PermanentError.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

func permanent(reason string, format string, args ...any) *PermanentError {
	return &PermanentError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// StatusError is the cause inside the Permanent/TransientError returned for
// an unsuccessful HTTP status.
type StatusError struct {
	URL    string
	Status int
}

// Error names the URL and the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// classifyStatus turns a non-2xx status into a Permanent or TransientError.
func classifyStatus(url string, status int, h http.Header, now time.Time) error {
	se := &StatusError{URL: url, Status: status}
	switch {
	case status == http.StatusRequestTimeout:
		return &TransientError{Reason: ReasonHTTPStatus, Err: se}
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		return &TransientError{Reason: ReasonHTTPStatus, Wait: retryAfter(h.Get("Retry-After"), now), Err: se}
	case status >= 500:
		return &TransientError{Reason: ReasonHTTPStatus, Err: se}
	default: // 1xx, unfollowed 3xx, 4xx
		return &PermanentError{Reason: ReasonHTTPStatus, Err: se}
	}
}

// retryAfter is the wait a Retry-After header value asks for, bounded by
// remoteerr.MaxRetryAfter; 0 when there is none or it is invalid.
func retryAfter(v string, now time.Time) time.Duration {
	d, _ := remoteerr.ParseRetryAfter(v, now)
	return d
}
