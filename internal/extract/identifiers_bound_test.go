package extract

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// TestEachMatchFindsWhatFindAllFinds: walking the matches one by one finds
// what FindAllStringSubmatch finds, word boundaries included.
func TestEachMatchFindsWhatFindAllFinds(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	parts := []string{"10.1234/abc", "10.55555/x(1)", "PMID: 123", "PMID 4567", "pmid:89", "arXiv:2101.01234v2",
		"arxiv: hep-th/9901001", "arxiv.org/abs/1706.03762", "pubmed.ncbi.nlm.nih.gov/31234567", "ncbi.nlm.nih.gov/pubmed/7",
		" ", "x", "1", ".", "/", "\n", "é", "\"", "a"}
	for i := range 20_000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		text := b.String()
		for _, c := range []struct {
			rx *regexp.Regexp
			g  int
		}{{rxDOI, 0}, {rxPMIDText, 1}, {rxPubMedURL, 1}, {rxArxivText, 1}} {
			var want, got []string
			for _, m := range c.rx.FindAllStringSubmatch(text, -1) {
				want = append(want, m[c.g])
			}
			eachMatch(c.rx, text, c.g, func(m string) { got = append(got, m) })
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d %q, %v: got %q, want %q", i, text, c.rx, got, want)
			}
		}
	}
}

// TestIdentifierFloodsAreBounded: a page of 5 MiB mentioning 376,000
// distinct DOIs yields the first MaxIdentifiers of them, holding a set of
// at most twice that many, not of all (before: a set and a slice of all
// of them, 44 MiB held). Not parallel: it measures the heap.
func TestIdentifierFloodsAreBounded(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	var b strings.Builder
	var dois []string
	for i := 0; b.Len() < bodyLimit-64; i++ {
		doi := fmt.Sprintf("10.5555/%x", i*7919%1_000_003)
		dois = append(dois, ident.NormalizeDOI(doi))
		b.WriteString(doi + " ")
	}
	text := b.String()
	var got []Identifier
	var took time.Duration
	peak := hostiletest.PeakHeap(func() {
		start := time.Now()
		got = Identifiers([]byte("<p>"+text[:1000]+"</p>"), text)
		took = time.Since(start)
	})
	t.Logf("%d DOIs in %d bytes: peak heap %s in %v", len(dois), len(text), hostiletest.MiB(peak), took.Round(time.Millisecond))
	slices.Sort(dois)
	dois = slices.Compact(dois)
	if len(got) != MaxIdentifiers || got[0].Value != dois[0] || got[MaxIdentifiers-1].Value != dois[MaxIdentifiers-1] {
		t.Errorf("%d identifiers from %v to %v, want the first %d of %d", len(got), got[0], got[len(got)-1], MaxIdentifiers, len(dois))
	}
	if peak > 8<<20 {
		t.Errorf("peak heap %s, want at most 8 MiB", hostiletest.MiB(peak))
	}
}
