package academic

import (
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
)

// What one request to an academic API can need: an answer is a page of at
// most as many papers as the request's limit asks for (limit, per-page, the
// ids of a batch), or one paper looked up by id.
const (
	// ListItemBytes bounds one paper of a list answer with this package's
	// fields: OpenAlex cuts a work's authorships at 100 in lists (about
	// 1 KiB each), and the recorded pages hold works of 10–46 KiB and
	// Semantic Scholar links of 0.2–6 KiB.
	ListItemBytes = 128 << 10
	// MaxItemBytes bounds any one paper of a list: an outlier may pass
	// ListItemBytes as long as the page does not.
	MaxItemBytes = 1 << 20
	// listEnvelopeBytes bounds a list answer's paging fields (meta, next,
	// cursors, group_by).
	listEnvelopeBytes = 16 << 10
)

// ListBound is the bound of a page of at most items papers: its bytes, the
// items of its list and the bytes of each; what names them ("references",
// "works").
func ListBound(items int, what string) httpx.Bound {
	return httpx.Bound{Bytes: listEnvelopeBytes + int64(max(items, 1))*ListItemBytes, Items: max(items, 1),
		ItemBytes: MaxItemBytes, What: fmt.Sprintf("a page of %d %s", items, what)}
}

// OneBound is the bound of one paper looked up by id, of at most bytes;
// what names it.
func OneBound(bytes int64, what string) httpx.Bound {
	return httpx.Bound{Bytes: bytes, What: what}
}
