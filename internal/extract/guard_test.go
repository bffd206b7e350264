package extract

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pruneThenReadability is the extraction before the article guard:
// readability on the pruned page.
func pruneThenReadability(t *testing.T, page []byte, pageURL string) string {
	t.Helper()
	u := mustURL(t, pageURL)
	doc := mustParse(t, string(page))
	title, _ := docMeta(doc)
	pruneChrome(doc, u, title)
	art, err := readable(doc, u)
	if err != nil {
		t.Fatal(err)
	}
	return nodeText(art.Node, false)
}

func TestArticleGuardKeepsTheShortArticle(t *testing.T) {
	t.Parallel()
	const lead = "Hoje fiz um pão caseiro com fermento natural"
	tests := []struct {
		name, file, url, lead, chrome string
	}{
		// Pruning removes the author box (role=contentinfo), the comment
		// form and the sidebar; what is left of the post is under
		// readability's 500 characters, and its retries end on the teaser
		// list beside it.
		{"author box, comment form and sidebar around a short post beside teasers",
			"short_article_beside_teasers.html", "https://blogdaana.example.pt/pao",
			lead, "Receita número 1"},
		// The page-wide <form> holds too little prose to be kept, so
		// pruning takes the story with it and leaves the cookie banner.
		{"a story inside a page-wide form beside a cookie banner",
			"article_in_form_beside_banner.html", "https://gazette.example.com/story.aspx",
			"The council voted 9 to 2 on Tuesday", "Cookie Settings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			page := readTestdata(t, tc.file)
			// The shape: without the guard, the article is lost.
			if before := pruneThenReadability(t, page, tc.url); strings.Contains(before, tc.lead) {
				t.Fatalf("readability on the pruned page already finds the article; the fixture no longer has the shape:\n%s", before)
			}
			d, err := FromHTML(page, mustURL(t, tc.url))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d.Text, tc.lead) || strings.Contains(d.Text, tc.chrome) {
				t.Errorf("text = %q, want the article (%q) without %q", d.Text, tc.lead, tc.chrome)
			}
		})
	}
}

func TestGuardArticleDecisions(t *testing.T) {
	t.Parallel()
	const lead = "The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank."
	words := func(n int, extra string) candidate {
		t := strings.TrimSpace(extra + " " + strings.Repeat("word ", n))
		return candidate{text: t, words: len(strings.Fields(t))}
	}
	article := words(120, lead)
	teasers := words(300, "")
	teasers.listing = true
	banner := words(3, "")
	withBlock := teasers
	withBlock.text = words(30, "").text + blockSep + teasers.text
	never := func() candidate { t.Error("alternative computed for a sound extraction"); return candidate{} }
	tests := []struct {
		name     string
		p        candidate
		lead     string
		alt      alternatives
		want     candidate
		wantLost bool
	}{
		{"sound extraction is kept, nothing else computed", article, lead,
			alternatives{section: never, unpruned: never, paragraphWords: func() int { return 0 }}, article, false},
		{"a long extraction without the lead, the section a header: kept", words(150, ""), lead,
			alternatives{section: func() candidate { return words(30, lead) }}, words(150, ""), false},
		{"a long extraction without the lead, the section an article: the section", words(150, ""), lead,
			alternatives{section: func() candidate { return words(80, lead) }}, words(80, lead), false},
		{"teaser list without the lead: the headline's section", teasers, lead,
			alternatives{section: func() candidate { return article }}, article, false},
		{"section mostly inside the extraction: kept", withBlock, lead,
			alternatives{section: func() candidate { return words(30, "") }}, withBlock, false},
		{"section of a few words: kept", teasers, lead,
			alternatives{section: func() candidate { return words(5, lead) }}, teasers, false},
		{"collapsed: the unpruned page holding the lead", banner, lead,
			alternatives{section: func() candidate { return candidate{} }, unpruned: func() candidate { return words(10, lead) }}, words(10, lead), false},
		{"collapsed, no lead: the unpruned page with 4x the words", banner, "",
			alternatives{unpruned: func() candidate { return words(40, "") }}, words(40, ""), false},
		{"collapsed beside a link list: lost", banner, "",
			alternatives{unpruned: func() candidate { c := words(400, ""); c.listing = true; return c },
				paragraphWords: func() int { return 400 }}, banner, true},
		{"a short page is a short page", banner, "",
			alternatives{unpruned: func() candidate { return words(5, "") }, paragraphWords: func() int { return 5 }}, banner, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := guardArticle(tc.p, tc.lead, tc.alt)
			if lost := errors.Is(err, ErrArticleLost); lost != tc.wantLost {
				t.Fatalf("err = %v, want lost %v", err, tc.wantLost)
			}
			if got.text != tc.want.text {
				t.Errorf("kept %d words %.40q, want %d words %.40q", got.words, got.text, tc.want.words, tc.want.text)
			}
		})
	}
}

func TestLinkListing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       bool
	}{
		{"teasers", strings.Repeat(`<div><h4><a href="/x">Another post title</a></h4><p>Its excerpt, a sentence long.</p></div>`, 4), true},
		{"article with a link in a sentence", strings.Repeat(`<p>Text with <a href="/x">a link</a> inside it.</p>`, 6), false},
		{"two link lines among paragraphs", `<p><a href="/a">Read more</a></p><p><a href="/b">Also</a></p>` + strings.Repeat(`<p>Prose.</p>`, 3), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := linkListing(leafBlocks(mustParse(t, "<div>"+tc.body+"</div>"))); got != tc.want {
				t.Errorf("linkListing = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIsPageTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		heading, title string
		want           bool
	}{
		{"Sea level rise", "Sea level rise", true},
		{"Sea level rise", "Sea level rise - Wikipedia", true},
		{"Enhanced Safe Browsing", "Security Blog: Enhanced Safe Browsing", true},
		// the site-name part is never the title
		{"Wikipedia", "Sea level rise - Wikipedia", false},
		{"Security Blog", "Security Blog: Enhanced Safe Browsing", false},
		{"Sea level", "Sea level rise", false},
		{"", "Sea level rise", false},
	}
	for _, tc := range tests {
		if got := isPageTitle(tc.heading, tc.title); got != tc.want {
			t.Errorf("isPageTitle(%q, %q) = %v, want %v", tc.heading, tc.title, got, tc.want)
		}
	}
}

func TestDropTailEndsTheArticleAtItsLastProse(t *testing.T) {
	t.Parallel()
	const prose = `<p>The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank.</p>`
	related := `<h3><a href="/a">Flood maps redrawn for the coast</a></h3><p><a href="/b">Read more: the 2019 floods</a></p>`
	tests := []struct{ name, body, want string }{
		{"share labels and tags after the article are dropped", prose + `<h4>Share this:</h4><p>Tags: flood, council</p>`,
			"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank."},
		{"a short last sentence is prose", prose + `<p>Work starts in March.</p>`,
			"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank.\n\nWork starts in March."},
		{"related stories after the article are dropped", prose + related,
			"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank."},
		{"a list of links inside the article stays", prose + `<ul><li><a href="/1">Bug 1: the tab unloader</a></li><li><a href="/2">Bug 2: the crash UI</a></li></ul>` + prose,
			"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank.\n\nBug 1: the tab unloader\n\nBug 2: the crash UI\n\n" +
				"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank."},
		{"anchors into the page are not links elsewhere", prose + `<p><a href="#top">Back to the start of the story about the barrier vote</a></p><p><a href="https://news.example.org/flood#top">Or read it again from the top of this page</a></p>`,
			"The council voted 9 to 2 on Tuesday to build a flood barrier along the east bank.\n\nBack to the start of the story about the barrier vote\n\nOr read it again from the top of this page"},
		{"a page that is a list of links keeps it", related,
			"Flood maps redrawn for the coast\n\nRead more: the 2019 floods"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := mustParse(t, "<div>"+tc.body+"</div>")
			dropTail(leafBlocks(n), mustURL(t, "https://news.example.org/flood"))
			if got := nodeText(n, false); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCountWords(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "  ", "one", " two  words ", "tab\tand\nnewline\u00a0nbsp"} {
		if got, want := countWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestContainedShare(t *testing.T) {
	t.Parallel()
	b := "First block of the article.\n\nSecond block.\n\nThird."
	for _, tc := range []struct {
		a    string
		want float64
	}{
		{"Second block.", 1},
		{"Second block.\n\nA block of elsewhere", 13.0 / 33},
		{"Second", 0}, // blocks match whole, not as substrings
		{"", 0},
	} {
		if got := containedShare(tc.a, b); !nearly(got, tc.want) {
			t.Errorf("containedShare(%q) = %.3f, want %.3f", tc.a, got, tc.want)
		}
	}
}

func nearly(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
