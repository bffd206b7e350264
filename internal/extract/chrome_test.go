package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html/atom"
)

// prunedText runs pruneChrome and the fallback walk over page (a <body>
// fragment) as FromHTML does, without readability.
func prunedText(t *testing.T, title, body, pageURL string) string {
	t.Helper()
	doc := mustParse(t, "<html><head><title>"+title+"</title></head><body>"+body+"</body></html>")
	pruneChrome(doc, mustURL(t, pageURL), title)
	return nodeText(doc, false)
}

func TestPruneChrome(t *testing.T) {
	t.Parallel()
	const article = `<p>Sea level rose by 15 to 25 cm between 1901 and 2018.</p>`
	tests := []struct {
		name, title, body, want string
	}{
		{"skip link", "",
			`<a class="x" href="#content">Skip to main content</a><a href="#main">Jump to navigation</a>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"skip link as absolute same-page URL", "",
			`<a href="https://example.org/page#content">Skip to content</a>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"same-page link with other text is kept", "",
			`<p>See <a href="#methods">the methods</a> below.</p>`,
			"See the methods below."},
		{"skip phrase to another page is kept", "",
			`<p><a href="/contents">Jump to the contents page</a></p>`,
			"Jump to the contents page"},
		{"nav", "",
			`<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"aria-hidden and hidden", "",
			`<div aria-hidden="true">Main menu</div><div hidden>Tools</div>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"hidden until-found is content", "",
			`<section hidden="until-found"><p>Collapsed section text.</p></section>`,
			"Collapsed section text."},
		{"ARIA landmark roles", "",
			`<div role="navigation">Sections</div><div role="search">Search this site</div>` +
				`<div role="banner">Site name</div>` + article + `<div role="contentinfo">© 2024 Example</div>` +
				`<ul role="menu"><li>Share</li></ul>`,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"footer and aside", "",
			article + `<aside><h3>Most read</h3></aside><footer><p>Privacy policy</p></footer>`,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"search form and search element", "",
			`<form action="/search"><label for="q">Search</label><input id="q"></form><search>Find</search>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"form wrapping the page is kept", "",
			`<form action="/postback"><p>` + strings.Repeat("A page that sits inside a form element. ", 6) + `</p></form>`,
			strings.TrimSpace(strings.Repeat("A page that sits inside a form element. ", 6))},
		{"site header dropped, article header kept", "Sea level rise - Example Wiki",
			`<header><a href="/">Example Wiki</a><nav>Menu</nav></header>` +
				`<main><header><h1>Sea level rise</h1><p class="byline">By Jane Doe</p></header>` + article + `</main>`,
			"Sea level rise\n\nBy Jane Doe\n\nSea level rose by 15 to 25 cm between 1901 and 2018."},
		{"title h1 kept from a site header", "Sea level rise | Example News",
			`<header><h1>Sea level rise</h1><nav>Menu</nav></header>` + article,
			"Sea level rise\n\nSea level rose by 15 to 25 cm between 1901 and 2018."},
		{"site-name h1 in a site header dropped", "Sea level rise | Example News",
			`<header><h1>Example News</h1></header>` + article,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"chrome classes and ids", "",
			`<div class="vector-dropdown"><label class="vector-dropdown-label">Languages</label></div>` +
				`<ol class="breadcrumb"><li>Home</li></ol><div id="siteSub" class="noprint">From the free encyclopedia</div>` +
				article + `<div class="printfooter">Retrieved from "x"</div><div id="catlinks">Categories: Climate</div>` +
				`<div class="d-print-none">Share this</div><table class="navbox"><tr><td>Climate topics</td></tr></table>`,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"an article whose class names a breadcrumb-like hook is kept", "",
			`<ol class="breadcrumb"><li>Home</li><li>Science</li></ol>` +
				`<article class="post js-article url-breadcrumb"><p>` + strings.Repeat("Sea level rose by 15 to 25 cm between 1901 and 2018. ", 4) + `</p></article>`,
			strings.TrimSpace(strings.Repeat("Sea level rose by 15 to 25 cm between 1901 and 2018. ", 4))},
		{"a block of prose inside a chrome-named wrapper is kept", "",
			`<div class="dropdown-layout"><p>` + strings.Repeat("Arctic sea ice has declined in area and volume. ", 5) + `</p></div>`,
			strings.TrimSpace(strings.Repeat("Arctic sea ice has declined in area and volume. ", 5))},
		{"comment form whose notes add up to 200 characters", "",
			article + `<form id="commentform"><p>Enter your details below or click an icon to log in:</p>` +
				strings.Repeat(`<p class="comment-form-posting-as">You are commenting using your account. (Log Out / Change)</p>`, 4) +
				`<p><label for="email">Email (required)</label><input id="email"></p></form>`,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"photo gallery: its counters, controls and captions, once per slide", "",
			`<div class="story-gallery">` + strings.Repeat(`<div class="slide"><span class="counter">Image 1 of 8</span>`+
				`<a href="#caption">Caption</a><a href="#close">Close</a><img src="flood.jpg" alt="">`+
				`<p class="caption">The flooded road at Riverside in 2019.</p></div>`, 2) + `</div>` +
				article + `<ul class="media-carousel"><li>Video 2 of 5</li></ul><div id="lightbox-root">Close</div>`,
			"Sea level rose by 15 to 25 cm between 1901 and 2018."},
		{"class words match whole parts only", "",
			`<div class="dropdownish-layout"><p>Kept text.</p></div><div class="catlinksy">More kept text.</div>`,
			"Kept text.\n\nMore kept text."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := prunedText(t, tc.title, tc.body, "https://example.org/page")
			if got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
			checkCanonical(t, got)
		})
	}
}

func TestPruneChromeHTMLClass(t *testing.T) {
	t.Parallel()
	doc := mustParse(t, `<html class="client-js feature-in-header-enabled" id="top" lang="en"><body><p>x</p></body></html>`)
	pruneChrome(doc, nil, "")
	root := firstElem(doc, atom.Html)
	if len(root.Attr) != 1 || root.Attr[0].Key != "lang" {
		t.Fatalf("html attributes = %+v, want only lang", root.Attr)
	}
}

// TestFromHTMLChromeShortArticle is the replay-corpus situation in small: a
// short article (under readability's 500-character threshold) in a page
// whose <html> class contains "header" and whose chrome (skip link, site
// header with navigation, title bar with a language dropdown, print footer,
// category links, footer) surrounds the content. Only the paragraphs come
// out, each its own block.
func TestFromHTMLChromeShortArticle(t *testing.T) {
	t.Parallel()
	page := `<!DOCTYPE html><html class="client-nojs feature-language-in-header-enabled" lang="en">
<head><title>Coral bleaching - Example Wiki</title></head><body>
<a class="jump-link" href="#bodyContent">Jump to content</a>
<div class="header-container"><header class="site-header"><nav aria-label="Site"><label aria-hidden="true">Main menu</label>
<ul><li><a href="/">Main page</a></li><li><a href="/random">Random article</a></li></ul></nav>
<div role="search"><form action="/search"><input name="q"><button>Search</button></form></div></header></div>
<div class="page"><main id="content">
<header class="titlebar"><h1 id="firstHeading">Coral bleaching</h1><div class="lang-dropdown"><label class="dropdown-label"><span>Languages</span></label></div></header>
<div class="toolbar"><nav aria-label="Tools"><span>Tools</span></nav></div>
<div id="bodyContent"><div id="siteSub" class="noprint">From Example Wiki, the free encyclopedia</div>
<div id="content-text"><p>During this time, over 70 percent of the coral reefs around the world have become damaged.
In late November 2016, surveys of 62 reefs showed that long term heat stress from climate change caused a 29% loss of shallow water coral.</p>
<p>Every 4–7 years, an El Niño event causes some reefs with heat-sensitive corals to bleach, with especially widespread bleachings in 1998 and 2010.
Increasing sea temperatures in tropical regions have caused major coral bleaching, death, and therefore shrinking coral populations.</p></div>
<div class="printfooter">Retrieved from "https://wiki.example.org/Coral_bleaching"</div>
<div id="catlinks" class="catlinks"><a href="/Categories">Categories</a>: <ul><li>Reefs</li></ul></div></div>
</main></div>
<footer role="contentinfo"><ul><li>Privacy policy</li><li>About Example Wiki</li></ul></footer>
</body></html>`
	d, err := FromHTML([]byte(page), mustURL(t, "https://wiki.example.org/Coral_bleaching"))
	if err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, d.Text)
	want := "During this time, over 70 percent of the coral reefs around the world have become damaged. " +
		"In late November 2016, surveys of 62 reefs showed that long term heat stress from climate change caused a 29% loss of shallow water coral.\n\n" +
		"Every 4–7 years, an El Niño event causes some reefs with heat-sensitive corals to bleach, with especially widespread bleachings in 1998 and 2010. " +
		"Increasing sea temperatures in tropical regions have caused major coral bleaching, death, and therefore shrinking coral populations."
	if got := strings.TrimPrefix(d.Text, "Coral bleaching\n\n"); got != want {
		t.Fatalf("text =\n%q\nwant\n%q", d.Text, want)
	}
	if !strings.HasPrefix(d.Title, "Coral bleaching") {
		t.Errorf("Title = %q", d.Title)
	}
}

// TestBlockSeparation: text on either side of a block boundary never ends up
// in one block, including inline text that is a sibling of block elements.
func TestBlockSeparation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, html, want string
	}{
		{"heading then paragraph", `<h1>Sea level rise</h1><p>Seas rise.</p>`, "Sea level rise\n\nSeas rise."},
		{"heading inside header then paragraph", `<header><h2>Title</h2></header><p>Body text.</p>`, "Title\n\nBody text."},
		{"inline siblings of blocks", `<div>Jump to content<h1>Title</h1>Languages<p>First para.</p>tail <b>text</b></div>`,
			"Jump to content\n\nTitle\n\nLanguages\n\nFirst para.\n\ntail text"},
		{"label in a dropdown", `<div><span>Menu</span><label><span>Languages</span></label><span>More</span></div>`,
			"Menu\n\nLanguages\n\nMore"},
		{"list items and divs", `<ul><li>One</li><li>Two</li></ul><div>Three</div><span>Four</span>`,
			"One\n\nTwo\n\nThree\n\nFour"},
		{"nested blocks", `<section><div><p>A</p></div>B<div>C</div></section>`, "A\n\nB\n\nC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := nodeText(mustParse(t, "<html><body>"+tc.html+"</body></html>"), false)
			if got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
			checkCanonical(t, got)
		})
	}
	// End to end through readability: the heading and the paragraphs stay
	// separate blocks.
	page := `<html><head><title>Report</title></head><body><article><h2>Sea level</h2><p>` +
		strings.Repeat("Between 1901 and 2018, the globally averaged sea level rose by 15 to 25 cm. ", 8) +
		`</p><h2>Ice sheets</h2><p>` + strings.Repeat("Ice loss from Greenland and Antarctica has accelerated, scientists say. ", 6) +
		`</p></article></body></html>`
	d, err := FromHTML([]byte(page), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(d.Text, "\n\n")
	if len(blocks) != 4 || blocks[0] != "Sea level" || blocks[2] != "Ice sheets" ||
		!strings.HasPrefix(blocks[1], "Between 1901") || !strings.HasPrefix(blocks[3], "Ice loss") {
		t.Fatalf("blocks = %q", blocks)
	}
}
