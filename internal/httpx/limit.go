package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Bound is the largest answer one request can need: Bytes; at most Items
// elements in each list decoded as a stream (0: any number; the request's
// limit, batch or documents), each at most ItemBytes once its white space
// is squeezed (0: any size within Bytes); and What the request asked for,
// which errors name ("a batch of 32 embeddings of 1024 dimensions"). The
// formulas are in bounds.go.
type Bound struct {
	Bytes     int64
	Items     int
	ItemBytes int64
	What      string
}

// String renders b as "1.2 MiB for a batch of 32 embeddings".
func (b Bound) String() string { return FormatBytes(b.Bytes) + " for " + b.What }

// FormatBytes renders n as bytes, KiB or MiB with at most one decimal.
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// TooLargeError is an answer that went past its Bound: its bytes, the items
// of one of its lists (Items), or the bytes of one item (Item). It wraps
// remoteerr.ErrBadResponse: an answer larger than the request can need is
// garbage, recorded and retried like any other.
type TooLargeError struct {
	Bound Bound
	Items bool // a list was too long
	Item  bool // an item of a list was too large
}

// Error says "answer over 1.2 MiB for a batch of 32 embeddings", "answer of
// more than 100 items for a page of 100 references" or "answer with an item
// over 1 MiB for a page of 200 works".
func (e *TooLargeError) Error() string {
	if e.Item {
		return "answer with an item over " + FormatBytes(e.Bound.ItemBytes) + " for " + e.Bound.What
	}
	if e.Items && e.Bound.Items == 1 {
		return "answer of more than 1 item for " + e.Bound.What
	}
	if e.Items {
		return fmt.Sprintf("answer of more than %d items for %s", e.Bound.Items, e.Bound.What)
	}
	return "answer over " + e.Bound.String()
}

// Unwrap returns remoteerr.ErrBadResponse.
func (e *TooLargeError) Unwrap() error { return remoteerr.ErrBadResponse }

// headBytes is how much of an answer a BoundedReader keeps for error messages.
const headBytes = snippetBytes

// BoundedReader hands out at most Bound.Bytes of an answer: the read that
// would go past them fails with a *TooLargeError (and so does every read
// after it). It keeps the answer's first bytes for error messages and the
// first error of the underlying reader (a connection cut mid-body), so a
// caller can tell a transport failure from a bad answer.
type BoundedReader struct {
	r    io.Reader
	b    Bound
	n    int64
	head []byte
	over *TooLargeError
	rerr error
}

// NewBoundedReader returns a BoundedReader of r within b.
func NewBoundedReader(r io.Reader, b Bound) *BoundedReader {
	b.Bytes = max(b.Bytes, 0)
	return &BoundedReader{r: r, b: b}
}

// Read implements io.Reader.
func (br *BoundedReader) Read(p []byte) (int, error) {
	if br.over != nil {
		return 0, br.over
	}
	if left := br.b.Bytes - br.n + 1; int64(len(p)) > left {
		p = p[:left] // one byte past the bound is enough to know
	}
	n, err := br.r.Read(p)
	if past := br.n + int64(n) - br.b.Bytes; past > 0 {
		n -= int(past) // the byte past the bound is not handed out
		br.over = &TooLargeError{Bound: br.b}
		err = br.over
	} else if err != nil && !errors.Is(err, io.EOF) && br.rerr == nil {
		br.rerr = err
	}
	br.n += int64(n)
	if k := min(n, headBytes-len(br.head)); k > 0 {
		br.head = append(br.head, p[:k]...)
	}
	return n, err
}

// Head returns the first bytes read (at most 200), for error messages.
func (br *BoundedReader) Head() []byte { return br.head }

// ReadErr returns the first error of the underlying reader other than
// io.EOF: the body could not be read to its end.
func (br *BoundedReader) ReadErr() error { return br.rerr }

// TooLarge returns the *TooLargeError once the answer went past the bound.
func (br *BoundedReader) TooLarge() *TooLargeError { return br.over }

// boundKey is the context key of a request's Bound.
type boundKey struct{}

// WithBound returns ctx carrying b, the bound of the answer to a request
// made with it, for clients that read the body themselves (go-openai): a
// Doer bounds the body it hands back by it.
func WithBound(ctx context.Context, b Bound) context.Context {
	return context.WithValue(ctx, boundKey{}, b)
}

// BoundOf returns the Bound ctx carries.
func BoundOf(ctx context.Context) (Bound, bool) {
	b, ok := ctx.Value(boundKey{}).(Bound)
	return b, ok
}
