package pageproc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
)

// TestParserBombsFailTheTargetTooManyElements: pages the HTML tree builder
// would multiply (internal/extract's parserbomb_test.go measures them) end
// Read unreadable with an error whose text, the target's failure reason,
// starts with too_many_elements and gives the figure; before, each was
// parsed (up to five million nodes, 1.85 GB of heap, or minutes of
// copying).
func TestParserBombsFailTheTargetTooManyElements(t *testing.T) {
	t.Parallel()
	var fmtBomb strings.Builder
	fmtBomb.WriteString("<p>")
	for i := range 250 {
		fmt.Fprintf(&fmtBomb, "<b id=%d>", i)
	}
	fmtBomb.WriteString(strings.Repeat("<p>x</p>", 20_000))
	var htmlAttrs, attrFlood strings.Builder
	for i := range 49_990 {
		fmt.Fprintf(&htmlAttrs, "<html a%d>", i)
	}
	attrFlood.WriteString("<div")
	for i := range 700_000 {
		fmt.Fprintf(&attrFlood, " a%d", i)
	}
	attrFlood.WriteString(">x</div>")
	pages := map[string]string{
		"formatting-bomb":      fmtBomb.String(),
		"end-tag-flood":        "<body>" + strings.Repeat("</p>", 1_200_000),
		"comment-flood":        "<body>" + strings.Repeat("<!---->", 650_000),
		"text-joined":          "<body>" + strings.Repeat("x</x>", 230_000),
		"html-attributes":      htmlAttrs.String() + "<p>x",
		"attribute-flood":      attrFlood.String(),
		"noscript-re-parse":    "<p>text</p><noscript>" + fmtBomb.String() + "</noscript>",
		"foster-parented-bomb": "<table>" + strings.TrimPrefix(fmtBomb.String(), "<p>") + strings.Repeat("<tr>x", 1000),
	}
	for name, body := range pages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := crawl.Result{URL: "https://bomb.example.org/", FinalURL: "https://bomb.example.org/", ContentType: "text/html",
				Body: []byte(body)}
			r := Read(context.Background(), URL(inHand{&res}, res.URL), Config{MaxElements: 50_000})
			err := r.Err
			if r.Status != StatusUnreadable || !errors.Is(err, extract.ErrTooManyElements) || !strings.HasPrefix(err.Error(), "too_many_elements: ") {
				t.Fatalf("%v %v, want the reason too_many_elements", r.Status, err)
			}
			t.Logf("%d bytes: %.200s", len(body), err)
		})
	}
}
