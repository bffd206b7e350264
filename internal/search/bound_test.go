package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Answers bounded by their request (issue 24, point 5). The test measures
// allocation, so it runs alone (no t.Parallel): runtime.MemStats.TotalAlloc
// counts the whole process, a strict upper bound of the heap the call grew.

// A SearxNG answering 64 MiB of valid-looking results, one result 64 MiB
// long, or a declared Content-Length of 64 MiB: before, the first 4 MiB
// were read into memory whatever the query asked for (then refused as
// "larger than 4194304 bytes"); now the reading stops at the bound of a
// page of results, which the error names.
func TestAnswerOf64MiBRefusedAtThePageBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	result := `{"url":"https://example.org/a","title":"A","content":"sea level","engine":"duckduckgo","score":1.0},`
	for _, tc := range []struct {
		name, prefix, filler, want string
		declare                    bool
	}{
		{"64 MiB of results", `{"query":"q","results":[`, result, "answer over 1 MiB for a page of search results (at most 100)", false},
		{"one result 64 MiB long", `{"query":"q","results":[{"url":"https://example.org/a","content":"`, "sea level ",
			"answer with an item over 64 KiB for a page of search results (at most 100)", false},
		{"Content-Length 64 MiB", `{"query":"q","results":[`, result, "answer over 1 MiB for a page of search results (at most 100)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			block := bytes.Repeat([]byte(tc.filler), (64<<10)/len(tc.filler))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.declare {
					w.Header().Set("Content-Length", fmt.Sprint(body))
				}
				if _, err := w.Write([]byte(tc.prefix)); err != nil {
					return
				}
				for left := body - len(tc.prefix); left > 0; left -= len(block) {
					if _, err := w.Write(block[:min(left, len(block))]); err != nil {
						return
					}
				}
			}))
			t.Cleanup(srv.Close)
			s, err := NewSearXNG(srv.URL, 0)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = s.Search(context.Background(), "sea level rise", 10)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: allocated %.1f MiB while answering a 64 MiB body; error: %v", tc.name, float64(alloc)/(1<<20), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > 4<<20 {
				t.Errorf("allocated %.1f MiB refusing the answer, want at most 4 MiB", float64(alloc)/(1<<20))
			}
		})
	}
}
