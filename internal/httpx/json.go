package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// PostJSON posts in as JSON to target with the extra header and decodes the
// 2xx JSON answer into out, reading at most b of it (ReadJSON). batch > 0 is
// recorded as the request's batch size.
func (c *Client) PostJSON(ctx context.Context, target string, header http.Header, in any, b Bound, out any, batch int) error {
	payload, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s %s: encoding the request: %w", c.o.Backend, c.o.Capability, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s %s: building the request: %w", c.o.Backend, c.o.Capability, err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if batch > 0 {
		c.o.Observer.ModelBatch(c.o.Backend, c.o.Capability, batch)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return c.ReadJSON(ctx, resp, req.URL.Path, b, out)
}

// ReadJSON decodes resp, a 2xx answer to a request for path made with ctx,
// into out as a stream (DecodeJSON) and closes its body. It reads at most b:
// one byte more (or a Content-Length over b, before reading) ends the
// reading with an *Error wrapping
// remoteerr.ErrBadResponse whose reason names the bound ("answer over 1.2 MiB
// for a batch of 32 embeddings …"). A body that is not JSON
// of out's shape, is JSON null or has data after the value is an *Error
// wrapping remoteerr.ErrBadResponse too; a body cut off by the connection is
// one wrapping remoteerr.ErrUnavailable, or the context's error when ctx
// ended.
func (c *Client) ReadJSON(ctx context.Context, resp *http.Response, path string, b Bound, out any) error {
	defer func() { _ = resp.Body.Close() }()
	br := NewBoundedReader(resp.Body, b)
	var err error
	if resp.ContentLength > b.Bytes { // declared too large: not read at all
		err = &TooLargeError{Bound: b}
	} else {
		err = DecodeJSON(br, b, out)
	}
	if err == nil {
		return nil
	}
	e := &Error{Backend: c.o.Backend, Capability: c.o.Capability, Path: path, Status: resp.StatusCode, Attempts: 1}
	var tooLarge *TooLargeError
	switch {
	case br.ReadErr() != nil && ctx.Err() != nil:
		e.Reason, e.Err = "context ended while reading the body", ctx.Err()
		return e
	case br.ReadErr() != nil:
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "connection")
		e.Reason, e.Err = "reading the body: "+shortNetErr(br.ReadErr()), remoteerr.ErrUnavailable
		return e
	case errors.As(err, &tooLarge):
		e.Reason = tooLarge.Error()
	default:
		e.Reason = "decoding the JSON answer: " + err.Error()
	}
	c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "bad_response")
	e.Message, e.Err = Snippet(string(bytes.TrimSpace(br.Head())), snippetBytes), remoteerr.ErrBadResponse
	return e
}
