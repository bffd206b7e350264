package extract

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
)

// replayDir is the bundled replay corpus: realistic page chrome (MediaWiki
// Vector skin, OpenAlex / Semantic Scholar layouts) around article text
// rendered from Climate-FEVER evidence sentences.
const replayDir = "../../testdata/replay/demo"

type replayPage struct {
	URL, ContentType string
	Body             []byte
}

func replayPages(t *testing.T) []replayPage {
	t.Helper()
	archive, err := crawl.OpenArchive(replayDir)
	if err != nil {
		t.Fatal(err)
	}
	var pages []replayPage
	for _, e := range archive.Entries() {
		if e.Status != 200 || strings.HasSuffix(e.URL, "/robots.txt") {
			continue
		}
		r, _, err := archive.Body(e)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		pages = append(pages, replayPage{URL: e.URL, ContentType: e.ContentType(), Body: body})
	}
	if len(pages) == 0 {
		t.Fatal("empty archive")
	}
	return pages
}

// wikiChrome is MediaWiki page chrome that must never reach the text.
var wikiChrome = []string{
	"Jump to content", "Languages", "Main menu", "Tools", "Retrieved from",
	"Categories", "From Wikipedia, the free encyclopedia", "Navigation",
	"Contents", "Create account", "Log in", "View history", "Talk",
	"Search Wikipedia", "Privacy policy", "Creative Commons", "Mobile view",
	"Wikimedia Foundation", "Articles with short description",
}

// scholarChrome is the navigation and footer of the paper pages.
var scholarChrome = []string{
	"Sign in", "Create free account", "API docs", "Similar papers",
	"Save to library", "Create alert", "Terms of Service", "Privacy Policy",
	"nonprofit", "Allen Institute", "Related",
}

// TestReplayCorpus extracts every page of the replay corpus: the text holds
// exactly the article's paragraphs, each its own block and in order (for
// Wikipedia an <h1> title block is allowed in front), and no page chrome.
func TestReplayCorpus(t *testing.T) {
	t.Parallel()
	for _, p := range replayPages(t) {
		t.Run(p.URL, func(t *testing.T) {
			t.Parallel()
			d, err := FromHTMLWithContentType(p.Body, p.ContentType, mustURL(t, p.URL))
			if err != nil {
				t.Fatal(err)
			}
			checkCanonical(t, d.Text)
			gq, err := goquery.NewDocumentFromReader(bytes.NewReader(p.Body))
			if err != nil {
				t.Fatal(err)
			}
			blocks := strings.Split(d.Text, "\n\n")
			wiki := strings.HasSuffix(mustURL(t, p.URL).Host, "wikipedia.org")

			// Ground truth: the article paragraphs.
			sel := "article .abstract p"
			if wiki {
				sel = "#mw-content-text p"
			}
			var paras []string
			gq.Find(sel).Each(func(_ int, s *goquery.Selection) {
				if txt := collapseSpace(s.Text()); txt != "" {
					paras = append(paras, txt)
				}
			})
			if len(paras) == 0 {
				t.Fatalf("no ground-truth paragraphs for %q", sel)
			}

			if wiki {
				// Exactly the paragraphs, each a block, optionally after
				// the page title as a heading block.
				got := blocks
				title := collapseSpace(gq.Find("h1").First().Text())
				if len(got) > 0 && got[0] == title {
					got = got[1:]
				}
				if strings.Join(got, "\n\n") != strings.Join(paras, "\n\n") {
					t.Errorf("blocks =\n%q\nwant paragraphs\n%q", blocks, paras)
				}
			} else {
				idx := -1
				for i, b := range blocks {
					if b == paras[0] {
						idx = i
					}
				}
				if idx < 0 {
					t.Errorf("abstract %q is not a block of\n%s", paras[0], d.Text)
				}
				if title := collapseSpace(gq.Find("h1").First().Text()); d.Title != title {
					t.Errorf("Title = %q, want %q", d.Title, title)
				}
			}

			chrome := scholarChrome
			if wiki {
				chrome = wikiChrome
			}
			for _, c := range chrome {
				if strings.Contains(d.Text, c) {
					t.Errorf("chrome %q leaked into text:\n%s", c, d.Text)
				}
			}
			// Derived from the page itself: no text of a navigation,
			// footer, aside, form or site-header element is a block, and
			// none of several words occurs at all.
			gq.Find(`nav, footer, aside, form, body > header, [role], .printfooter, .catlinks, .vector-dropdown, a[href^="#"]`).Each(func(_ int, s *goquery.Selection) {
				if r, ok := s.Attr("role"); ok && r == "main" {
					return
				}
				s.Find("*").AddSelection(s).Each(func(_ int, e *goquery.Selection) {
					txt := collapseSpace(e.Text())
					if txt == "" {
						return
					}
					for _, b := range blocks {
						if b == txt {
							t.Errorf("chrome block %q in text", txt)
						}
					}
					if len(strings.Fields(txt)) >= 3 && strings.Contains(d.Text, txt) {
						t.Errorf("chrome text %q in text", txt)
					}
				})
			})
		})
	}
}
