package s2

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Answers bounded by their request (issue 24, point 5). The tests that
// measure allocation run alone (no t.Parallel): runtime.MemStats.TotalAlloc
// counts the whole process, so it is a strict upper bound of the heap the
// call grew, the fake server's writes included.

// Semantic Scholar answering 64 MiB of valid-looking JSON: before, every
// answer was read whole into memory up to 64 MiB; now the reading stops at
// the bound of the request — a page of at most its limit of links, one
// paper — which the error names.
func TestAnswerOf64MiBRefusedAtTheLimitBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	link := `{"isInfluential":false,"contexts":["as shown in"],"intents":[],"citedPaper":{"paperId":"x","title":"A title"}},`
	refs := func(c *Client) error {
		_, _, err := c.References(context.Background(), "CorpusId:1033682", academic.Limit{})
		return err
	}
	for _, tc := range []struct {
		name, prefix, filler, suffix, want string
		call                               func(c *Client) error
		max                                uint64
	}{
		{"references, 64 MiB of links", `{"offset":0,"next":100,"data":[`, link, `{}]}`,
			"answer of more than 100 items for a page of 100 references", refs, 4 << 20},
		{"references, a link padded to 64 MiB", `{"offset":0,"next":100,"data":[{"isInfluential":false`, " ", `}]}`,
			"answer over 12.5 MiB for a page of 100 references", refs, 8 << 20},
		{"references, a link whose context is 64 MiB long", `{"offset":0,"next":100,"data":[{"contexts":["`, "as shown ", `"]}]}`,
			"answer with an item over 1 MiB for a page of 100 references", refs, 8 << 20},
		{"one paper padded to 64 MiB", `{"paperId":"x","title":"A title"`, " ", `}`,
			"answer over 2 MiB for one paper", func(c *Client) error {
				_, err := c.Paper(context.Background(), ByDOI("10.1093/mind/lix.236.433"))
				return err
			}, 16 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostiletest.PaddedServer(t, tc.prefix, tc.filler, tc.suffix, body)
			c := newClient(t, srv.URL)
			var err error
			alloc := hostiletest.Allocated(func() { err = tc.call(c) })
			t.Logf("%s: allocated %s while answering a %s body; error: %v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > tc.max {
				t.Errorf("allocated %s refusing the answer, want at most %s", hostiletest.MiB(alloc), hostiletest.MiB(tc.max))
			}
		})
	}
}
