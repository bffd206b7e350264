package openaibackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// errorBodyBytes bounds the part of an error answer read for its message.
const errorBodyBytes = 8 << 10

// wireDoer wraps the configured Doer so that every outcome is classified the
// same way whatever the Doer is: it hands back a 2xx body bounded by the
// httpx.Bound its request's context carries (httpx.WithBound; a request
// without one is not sent), whose reads fail with an error wrapping
// remoteerr.ErrBadResponse past the bound and remoteerr.ErrUnavailable (or the
// context's error) when the connection breaks mid-body, so go-openai's own
// decoding keeps the classification; it turns non-2xx answers into errors
// wrapping remoteerr.ErrUnavailable / remoteerr.ErrRejected /
// remoteerr.ErrBadResponse, and wraps transport errors in
// remoteerr.ErrUnavailable unless they already carry a sentinel or the
// caller's context ended.
type wireDoer struct{ inner Doer }

// Do implements Doer (and go-openai's HTTPDoer).
func (d *wireDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	where := req.Method + " " + req.URL.Path
	bound, ok := httpx.BoundOf(ctx)
	if !ok {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("openai backend: %s: no answer bound set for the request", where)
	}
	resp, err := d.inner.Do(req)
	if err != nil {
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		return nil, transportError(ctx, where, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, err := io.ReadAll(io.LimitReader(resp.Body, errorBodyBytes))
		_ = resp.Body.Close()
		if err != nil {
			return nil, transportError(ctx, where, fmt.Errorf("reading the body: %w", err))
		}
		return nil, statusError(where, resp.StatusCode, body)
	}
	if resp.ContentLength > bound.Bytes { // declared too large: not read at all
		_ = resp.Body.Close()
		return nil, fmt.Errorf("openai backend: %s: %w: %w", where, remoteerr.ErrBadResponse, &httpx.TooLargeError{Bound: bound})
	}
	br := httpx.NewBoundedReader(resp.Body, bound)
	resp.Body = &wireBody{br: br, r: httpx.SqueezeSpace(br), body: resp.Body, ctx: ctx, where: where}
	return resp, nil
}

// wireBody is a 2xx answer's body read within its bound, its white space
// squeezed (httpx.SqueezeSpace: OpenAI's API indents every number of an
// embedding); its read errors are classified (see wireDoer).
type wireBody struct {
	br    *httpx.BoundedReader
	r     io.Reader // br, squeezed
	body  io.Closer
	ctx   context.Context
	where string
}

// Read implements io.Reader.
func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == nil || errors.Is(err, io.EOF) {
		return n, err
	}
	var tooLarge *httpx.TooLargeError
	if errors.As(err, &tooLarge) {
		return n, fmt.Errorf("openai backend: %s: %w: %w", b.where, remoteerr.ErrBadResponse, tooLarge)
	}
	return n, transportError(b.ctx, b.where, fmt.Errorf("reading the body: %w", err))
}

// Close implements io.Closer.
func (b *wireBody) Close() error { return b.body.Close() }

// head returns the first bytes of the answer read so far, for error messages.
func (b *wireBody) head() string { return string(b.br.Head()) }

// isClassified reports whether err already carries a sentinel or a context error.
func isClassified(err error) bool {
	return errors.Is(err, remoteerr.ErrUnavailable) || errors.Is(err, remoteerr.ErrRejected) || errors.Is(err, remoteerr.ErrBadResponse) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// transportError classifies an error of the Doer or of reading the body.
func transportError(ctx context.Context, where string, err error) error {
	switch {
	case ctx.Err() != nil && !errors.Is(err, ctx.Err()):
		return fmt.Errorf("openai backend: %s: %w (%v)", where, ctx.Err(), err)
	case ctx.Err() != nil,
		errors.Is(err, remoteerr.ErrUnavailable), errors.Is(err, remoteerr.ErrRejected), errors.Is(err, remoteerr.ErrBadResponse):
		return fmt.Errorf("openai backend: %s: %w", where, err)
	}
	// Connection refused, reset, per-request timeouts of the Doer (which
	// wrap context.DeadlineExceeded although the caller's context is fine):
	// the server could not answer.
	return fmt.Errorf("openai backend: %s: %w: %w", where, remoteerr.ErrUnavailable, err)
}

// statusError classifies a non-2xx answer the Doer handed back (a plain
// http.Client does; httpx.Client turns them into errors itself, the same way).
func statusError(where string, status int, body []byte) error {
	msg := errorMessage(body)
	var sentinel error
	hint := ""
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests,
		status == http.StatusFailedDependency, status >= 500:
		sentinel = remoteerr.ErrUnavailable
	case status == http.StatusNotFound:
		sentinel = remoteerr.ErrRejected
		hint = " (does BaseURL include the /v1 prefix, and does the server have the model?)"
	case status >= 400:
		sentinel = remoteerr.ErrRejected
	default:
		sentinel = remoteerr.ErrBadResponse
	}
	return fmt.Errorf("openai backend: %s: %w: status %d%s: %q", where, sentinel, status, hint, msg)
}

// errorMessage extracts the server's message from an error body: OpenAI's and
// Ollama's {"error":{"message":…}}, Ollama's native {"error":"…"} and vLLM's
// {"message":…}; anything else is returned as text. At most 200 bytes.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case v.Message != "":
			msg = v.Message
		}
	}
	if msg == "" {
		msg = string(bytes.TrimSpace(body))
	}
	return snippet(msg, 200)
}

// snippet cuts s to at most n bytes on a rune boundary, marking a cut with "…".
func snippet(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
