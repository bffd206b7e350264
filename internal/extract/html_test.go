package extract

import (
	"errors"
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// articlePage is a realistic news-style page: site chrome (nav, header, cookie
// banner, sidebar, footer, scripts, styles, JSON-LD) around an article whose
// prose is English Wikipedia text ("Global warming", "Sea level rise";
// CC BY-SA 4.0, via the Climate-FEVER dataset) plus a little non-ASCII text.
const articlePage = `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>Global warming explained | Example Science News</title>
<meta name="citation_doi" content="https://doi.org/10.1038/NCLIMATE2999">
<meta name="citation_pmid" content="29512345">
<meta name="citation_arxiv_id" content="arXiv:2101.01234v3">
<meta name="dc.identifier" content="doi:10.5194/esd-9-1-2018">
<style>body { font-family: sans-serif; } .cookie { position: fixed; }</style>
<script>window.dataLayer = [{"page": "article"}]; function track() { return "TRACKING SCRIPT TEXT"; }</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Global warming explained"}</script>
</head>
<body>
<div class="cookie-banner" id="cookie-consent">We use cookies to improve your experience. <button>Accept all cookies</button></div>
<header class="site-header">
  <a class="logo" href="/">Example Science News</a>
  <nav class="main-nav"><ul>
    <li><a href="/world">World</a></li><li><a href="/climate">Climate</a></li>
    <li><a href="/tech">Technology</a></li><li><a href="/subscribe">Subscribe now</a></li>
  </ul></nav>
</header>
<div class="layout">
<main>
<article class="post">
  <h1>Global warming explained</h1>
  <p class="byline">By Jane Doe · 12 March 2024</p>
  <div class="post-body">
    <p>Global warming is the long-term rise in the average temperature of the Earth's climate system.
       It is a major aspect of climate change and has been demonstrated by direct temperature
       measurements and by measurements of various effects of the warming.</p>
    <p>The largest human influence has been the emission of greenhouse gases such as carbon dioxide,
       methane, and nitrous oxide.<sup class="reference"><a href="#cite-1">[1]</a></sup> Climate model
       projections summarized in the report indicated that during the 21st century the global surface
       temperature is likely to rise a further 0.3 to 1.7&nbsp;°C in a moderate scenario.</p>
    <h2>Sea level</h2>
    <p>Between 1901 and 2018, the globally averaged sea level rose by 15–25&nbsp;cm, or an average of
       1–2&nbsp;mm per year. This rate accelerated to 3.7&nbsp;mm/yr for the decade 2006–2016.</p>
    <ul>
      <li>Thermal expansion of sea water as it warms.</li>
      <li>Melting of land-based ice sheets and glaciers, such as in <em>Grønland</em>.</li>
    </ul>
    <h2>Voices</h2>
    <p>In Tokyo, the phrase 「地球温暖化」 (<i>chikyū ondanka</i>) appears on public posters 🌍, and a café
       owner in Montréal said the summers “feel longer every year”.</p>
    <p>See the underlying study at <a href="https://doi.org/10.1126/science.aaa4019">Science</a>,
       <a href="https://pubmed.ncbi.nlm.nih.gov/31234567/">PubMed</a> and
       <a href="https://arxiv.org/abs/1706.03762v5">arXiv</a>.</p>
  </div>
</article>
</main>
<aside class="sidebar">
  <h3>Most read</h3>
  <ol><li><a href="/a">Ten gadgets you need this summer</a></li><li><a href="/b">Celebrity chef opens new restaurant</a></li></ol>
  <div class="ad">Advertisement</div>
</aside>
</div>
<footer class="site-footer">
  <p>© 2024 Example Science News. All rights reserved.</p>
  <p><a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of use</a> · <a href="/cookies">Cookie settings</a></p>
</footer>
<script>document.querySelectorAll('a').forEach(function (a) { a.addEventListener('click', track); });</script>
</body>
</html>`

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// checkCanonical verifies the canonical-text rules on doc text.
func checkCanonical(t *testing.T, text string) {
	t.Helper()
	if text != strings.TrimSpace(text) {
		t.Errorf("text not trimmed: %q", text)
	}
	for _, bad := range []string{"\n\n\n", "  ", " \n", "\n ", "\t", "\r", "\u00a0", "\x00"} {
		if strings.Contains(text, bad) {
			t.Errorf("text contains %q: %q", bad, text)
		}
	}
	if text == "" {
		return
	}
	for _, block := range strings.Split(text, "\n\n") {
		if block == "" || strings.Contains(block, "\n") {
			t.Errorf("bad block %q", block)
		}
	}
}

func TestFromHTMLArticle(t *testing.T) {
	t.Parallel()
	d, err := FromHTML([]byte(articlePage), mustURL(t, "https://news.example.org/climate/global-warming"))
	if err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, d.Text)
	if d.Lang != "en-GB" {
		t.Errorf("Lang = %q", d.Lang)
	}
	if !strings.Contains(d.Title, "Global warming explained") {
		t.Errorf("Title = %q", d.Title)
	}
	wantBlocks := []string{
		"Global warming is the long-term rise in the average temperature of the Earth's climate system. It is a major aspect of climate change and has been demonstrated by direct temperature measurements and by measurements of various effects of the warming.",
		// <sup class="reference"> dropped, &nbsp; collapsed to a space
		"The largest human influence has been the emission of greenhouse gases such as carbon dioxide, methane, and nitrous oxide. Climate model projections summarized in the report indicated that during the 21st century the global surface temperature is likely to rise a further 0.3 to 1.7 °C in a moderate scenario.",
		"Sea level", // heading: its own block, plain text
		"Between 1901 and 2018, the globally averaged sea level rose by 15–25 cm, or an average of 1–2 mm per year. This rate accelerated to 3.7 mm/yr for the decade 2006–2016.",
		"Thermal expansion of sea water as it warms.", // list items: own blocks
		"Melting of land-based ice sheets and glaciers, such as in Grønland.",
		"Voices",
		"In Tokyo, the phrase 「地球温暖化」 (chikyū ondanka) appears on public posters 🌍, and a café owner in Montréal said the summers “feel longer every year”.",
	}
	blocks := strings.Split(d.Text, "\n\n")
	idx := map[string]int{}
	for i, b := range blocks {
		idx[b] = i
	}
	last := -1
	for _, w := range wantBlocks {
		i, ok := idx[w]
		if !ok {
			t.Errorf("missing block %q in\n%s", w, d.Text)
			continue
		}
		if i <= last {
			t.Errorf("block %q out of order", w)
		}
		last = i
	}
	for _, junk := range []string{
		"TRACKING SCRIPT", "dataLayer", "font-family", "schema.org", "Accept all cookies",
		"We use cookies", "Subscribe now", "Technology", "Ten gadgets", "Celebrity chef",
		"All rights reserved", "Privacy policy", "Cookie settings", "Advertisement", "[1]",
	} {
		if strings.Contains(d.Text, junk) {
			t.Errorf("boilerplate %q leaked into text:\n%s", junk, d.Text)
		}
	}
}

func TestFromHTMLFallback(t *testing.T) {
	t.Parallel()
	// readability drops an <h1> that duplicates the <title> and then finds
	// nothing; the fallback walk keeps it and still skips scripts and
	// hidden elements.
	page := `<html lang="fr"><head><title>Bonjour</title></head><body>
<main><h1>Bonjour</h1><div hidden>caché</div></main>
<script>var x = "script text";</script></body></html>`
	d, err := FromHTML([]byte(page), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "Bonjour" || d.Title != "Bonjour" || d.Lang != "fr" {
		t.Fatalf("got %+v", d)
	}
	page = `<html><body><nav>Menu</nav><div class="content"><h2>Über uns</h2><div>Wir   sind
	ein kleines Team.</div></div><aside>Werbung</aside></body></html>`
	if got := nodeText(contentRoot(mustParse(t, page)), true); got != "Über uns\n\nWir sind ein kleines Team." {
		t.Fatalf("fallback walk = %q", got)
	}
}

func TestFromHTMLNoText(t *testing.T) {
	t.Parallel()
	for _, page := range []string{"", "<html><body></body></html>", "<button>OK</button><script>x()</script>"} {
		d, err := FromHTML([]byte(page), nil)
		if !errors.Is(err, ErrNoText) || d.Text != "" {
			t.Errorf("%q: got %+v, %v", page, d, err)
		}
	}
}

func TestFromHTMLBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, html, want string
	}{
		{"br and pre", `<p>visible  text<br>next line</p><pre>code line 1
code line 2

para 2</pre>`, "visible text next line\n\ncode line 1 code line 2\n\npara 2"},
		{"table rows", `<table><tr><th>Year</th><th>CO₂ (ppm)</th></tr><tr><td>1960</td><td>316.9</td></tr></table>`,
			"Year CO₂ (ppm)\n\n1960 316.9"},
		{"hidden and wiki chrome", `<div><h2>History<span class="mw-editsection">[edit]</span></h2>
<p aria-hidden="true">hidden</p><p style="display: none">gone</p><p hidden>gone too</p>
<p>Founded in 1998.<sup class="noprint">[citation needed]</sup></p><div id="toc">Contents 1 History</div></div>`,
			"History\n\nFounded in 1998."},
		{"inline elements join", `<p>CO<sub>2</sub> is <b>a</b><i>n</i> important gas.</p>`, "CO2 is an important gas."},
		{"control chars and soft hyphen", "<p>a\x01b\u00adc\u200bd\ufeffe</p>", "abcde"},
		{"NFC", "<p>Cafe\u0301</p>", "Café"},
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
}

func TestFromHTMLCharset(t *testing.T) {
	t.Parallel()
	para := "<p>" + strings.Repeat("Plain ASCII prose about the climate system. ", 30) + "</p>"
	tests := []struct {
		name, ctype string
		body        []byte
		want        string
	}{
		{"windows-1252 via meta", "",
			[]byte("<html><head><meta charset=\"windows-1252\"></head><body><p>Caf\xe9 cr\xe8me \x93quoted\x94</p></body></html>"),
			"Café crème “quoted”"},
		{"shift_jis via content-type", "text/html; charset=Shift_JIS",
			[]byte("<html><body><p>\x93\xfa\x96\x7b\x8c\xea</p></body></html>"), // 日本語
			"日本語"},
		{"utf-8 after 1 KiB of ASCII, no declaration", "",
			[]byte("<html><head><title>t</title></head><body>" + para + "<p>Grønland ❄️ 北極 is where the ice melts.</p></body></html>"),
			"Grønland ❄️ 北極"},
		{"meta lies, body is utf-8", "",
			[]byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>naïve résumé</p></body></html>"),
			"naïve résumé"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := FromHTMLWithContentType(tc.body, tc.ctype, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d.Text, tc.want) {
				t.Fatalf("text %q does not contain %q", d.Text, tc.want)
			}
		})
	}
}

func TestFromPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want, title string
	}{
		{"paragraphs", "  First line\nsame   paragraph.\r\n\r\n\n\tSecond paragraph.  \n", "First line same paragraph.\n\nSecond paragraph.", ""},
		{"markdown headings", "# Report title\nIntro text.\n## Methods ##\nWe measured.\n#hashtag line", "Report title\n\nIntro text.\n\nMethods\n\nWe measured. #hashtag line", "Report title"},
		{"invalid utf8 and BOM", "\ufeffa\xffb\n\nc\x00d", "a\ufffdb\n\ncd", ""},
		{"japanese and emoji", "東京は　日本の首都です。\n\n🌍  地球", "東京は 日本の首都です。\n\n🌍 地球", ""},
		{"only whitespace", " \n\t\n ", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := FromPlainText([]byte(tc.in))
			if d.Text != tc.want || d.Title != tc.title {
				t.Fatalf("got text %q title %q; want %q, %q", d.Text, d.Title, tc.want, tc.title)
			}
			checkCanonical(t, d.Text)
		})
	}
}

// TestCheckElementsHoldsNoTree counts a 4.5 MB flood of paragraphs with the
// streaming tokenizer: refused past the cap, allocating a small fraction of
// what parsing it would. Not parallel: it measures the process's allocations.
func TestCheckElementsHoldsNoTree(t *testing.T) {
	flood := []byte(strings.Repeat("<p>a.</p>", 500_000))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := CheckElements(flood, 50_000)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooManyElements) {
		t.Fatalf("flood: %v, want ErrTooManyElements", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("counting allocated %d MiB, want at most 16", n>>20)
	}
	if err := CheckElements(flood[:9*1000], 50_000); err != nil {
		t.Errorf("1,000 elements: %v", err)
	}
	if err := CheckElements(flood, 0); err != nil {
		t.Errorf("no cap: %v", err)
	}
}
