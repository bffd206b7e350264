package pageproc

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
)

// TestMetadataBoundsWhatTheOutsideSays: a page's title and content type and
// an API's paper metadata are outside text; the page as stored keeps a
// bounded part of each (a 4 MiB <title> was stored whole).
func TestMetadataBoundsWhatTheOutsideSays(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", 2<<20) // 4 MiB
	authors := make([]string, 10000)
	for i := range authors {
		authors[i] = fmt.Sprint("Author ", i, huge[:2000])
	}
	res := &crawl.Result{URL: "https://a.example/", FinalURL: "https://a.example/", Status: 200, ContentType: "text/" + huge}
	pw := metadata(res, huge, &academic.Paper{Title: huge, Venue: huge, Authors: authors})
	t.Logf("title %d → %d bytes, content type %d → %d, paper title %d → %d, venue %d → %d, authors %d → %d",
		len(huge), len(pw.Title), len(res.ContentType), len(pw.ContentType), len(huge), len(pw.Paper.Title),
		len(huge), len(pw.Paper.Venue), len(authors), len(pw.Paper.Authors))
	if n := utf8.RuneCountInString(pw.Title); n != maxTitleRunes {
		t.Errorf("title of %d characters, want %d", n, maxTitleRunes)
	}
	if len(pw.ContentType) > maxContentTypeBytes+len("…") {
		t.Errorf("content type of %d bytes", len(pw.ContentType))
	}
	if utf8.RuneCountInString(pw.Paper.Title) != maxTitleRunes || utf8.RuneCountInString(pw.Paper.Venue) != maxTitleRunes {
		t.Errorf("paper title/venue of %d/%d characters", utf8.RuneCountInString(pw.Paper.Title), utf8.RuneCountInString(pw.Paper.Venue))
	}
	if len(pw.Paper.Authors) != maxAuthors || utf8.RuneCountInString(pw.Paper.Authors[0]) != maxAuthorRunes {
		t.Errorf("%d authors, the first of %d characters", len(pw.Paper.Authors), utf8.RuneCountInString(pw.Paper.Authors[0]))
	}
	if authors[0] != fmt.Sprint("Author ", 0, huge[:2000]) {
		t.Error("the paper's own author list was changed")
	}
	short := metadata(&crawl.Result{ContentType: "text/html"}, "Sea ice", nil)
	if short.Title != "Sea ice" || short.ContentType != "text/html" {
		t.Errorf("short values changed: %q %q", short.Title, short.ContentType)
	}
}
