package openalex

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

// OpenAlex answering 64 MiB of valid-looking JSON: before, every answer was
// read whole into memory up to 64 MiB; now the reading stops at the bound
// of the request — a page of at most its per-page of works, none over
// 1 MiB; one work — which the error names.
func TestAnswerOf64MiBRefusedAtThePerPageBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	work := `{"id":"https://openalex.org/W1","doi":"https://doi.org/10.1/x","title":"A title","display_name":"A title",` +
		`"publication_year":2020,"authorships":[{"author":{"display_name":"A. Author"}}],"referenced_works":[],"abstract_inverted_index":{"A":[0]}},`
	refs := func(c *Client) error {
		_, _, err := c.References(context.Background(), academic.Limit{}, "W3046863325")
		return err
	}
	for _, tc := range []struct {
		name, prefix, filler, suffix, want string
		call                               func(c *Client) error
		max                                uint64
	}{
		{"works, 64 MiB of them", `{"meta":{"count":1000000,"next_cursor":"x","per_page":200},"results":[`, work, `{}]}`,
			"answer of more than 200 items for a page of 200 works", refs, 4 << 20},
		{"works, the title of one 64 MiB long", `{"meta":{"count":1,"per_page":200},"results":[{"id":"https://openalex.org/W1","title":"`, "a title ", `"}]}`,
			"answer with an item over 1 MiB for a page of 200 works", refs, 8 << 20},
		{"one work whose abstract is 64 MiB long", `{"id":"https://openalex.org/W1","abstract_inverted_index":{"word":[0`, ",1", `]}}`,
			"answer over 8 MiB for one work", func(c *Client) error {
				_, err := c.WorkByDOI(context.Background(), "10.7717/peerj.4375")
				return err
			}, 40 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostiletest.PaddedServer(t, tc.prefix, tc.filler, tc.suffix, body)
			c := newClient(t, Options{BaseURL: srv.URL})
			var err error
			alloc := hostiletest.Allocated(func() { err = tc.call(c) })
			t.Logf("%s: allocated %s while answering a %s body; error: %.300v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %.300v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > tc.max {
				t.Errorf("allocated %s refusing the answer, want at most %s", hostiletest.MiB(alloc), hostiletest.MiB(tc.max))
			}
		})
	}
}
