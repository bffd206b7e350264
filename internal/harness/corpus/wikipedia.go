package corpus

import (
	"fmt"
	"html"
	"strings"
)

// HTMLContentType is the Content-Type recorded for every rendered page.
const HTMLContentType = "text/html; charset=utf-8"

// WikipediaURL returns the English Wikipedia article URL for a title, escaped
// the way MediaWiki does: spaces become underscores, ASCII letters, digits and
// -_.~;@$!*(),/: stay literal, everything else (including ' & ? + % and
// every byte of a non-ASCII character) is percent-encoded in upper case.
// "El Niño" → https://en.wikipedia.org/wiki/El_Ni%C3%B1o,
// "Earth's energy budget" → https://en.wikipedia.org/wiki/Earth%27s_energy_budget.
func WikipediaURL(title string) string {
	return "https://en.wikipedia.org/wiki/" + wikiEscape(strings.ReplaceAll(strings.TrimSpace(title), " ", "_"))
}

func wikiEscape(s string) string {
	const hexdig = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			strings.IndexByte("-_.~;@$!*(),/:", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexdig[c>>4])
			b.WriteByte(hexdig[c&15])
		}
	}
	return b.String()
}

// RenderArticles groups the records' evidence sentences by Wikipedia article
// and renders one page per article at its en.wikipedia.org URL, sentences in
// evidence-number order, about three per paragraph, wrapped in Wikipedia-like
// boilerplate (navigation, search, footer with the CC BY-SA notice, scripts)
// so that main-content extraction has real work to do. Pages are sorted by
// title; the output is deterministic.
func RenderArticles(records []Record) []Page {
	arts := groupArticles(records)
	pages := make([]Page, 0, len(arts))
	for _, a := range arts {
		u := WikipediaURL(a.title)
		pages = append(pages, Page{URL: u, ContentType: HTMLContentType, Body: []byte(renderArticle(a, u))})
	}
	return pages
}

func renderArticle(a article, pageURL string) string {
	title := html.EscapeString(a.title)
	ids := make([]string, len(a.sentences))
	for i, s := range a.sentences {
		ids[i] = fmt.Sprint(s.n)
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n")
	b.WriteString(`<html class="client-nojs vector-feature-language-in-header-enabled" lang="en" dir="ltr">` + "\n")
	b.WriteString("<head>\n<meta charset=\"UTF-8\">\n")
	fmt.Fprintf(&b, "<title>%s - Wikipedia</title>\n", title)
	b.WriteString(`<script>document.documentElement.className="client-js vector-feature-language-in-header-enabled";` +
		`RLCONF={"wgBreakFrames":false,"wgSeparatorTransformTable":["",""],"wgDefaultDateFormat":"dmy",` +
		`"wgMonthNames":["","January","February","March","April","May","June","July","August","September","October","November","December"],` +
		`"wgRequestId":"replay","wgCanonicalNamespace":"","wgNamespaceNumber":0,` + `"wgPageName":` + jsonString(strings.ReplaceAll(a.title, " ", "_")) + `,"wgTitle":` + jsonString(a.title) +
		`,"wgIsArticle":true,"wgAction":"view","wgUserName":null,"wgContentLanguage":"en"};` +
		`RLSTATE={"site.styles":"ready","user.styles":"ready","skins.vector.styles":"ready"};RLPAGEMODULES=["site","mediawiki.page.ready","skins.vector.js"];</script>` + "\n")
	b.WriteString(`<link rel="stylesheet" href="/w/load.php?lang=en&amp;modules=ext.cite.styles%7Cskins.vector.styles&amp;only=styles&amp;skin=vector-2022">` + "\n")
	b.WriteString(`<meta name="generator" content="MediaWiki">` + "\n")
	b.WriteString(`<meta name="referrer" content="origin-when-cross-origin">` + "\n")
	fmt.Fprintf(&b, "<meta property=\"og:title\" content=\"%s - Wikipedia\">\n", title)
	b.WriteString(`<meta property="og:type" content="website">` + "\n")
	fmt.Fprintf(&b, "<link rel=\"canonical\" href=\"%s\">\n", html.EscapeString(pageURL))
	b.WriteString(`<link rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/deed.en">` + "\n")
	b.WriteString("</head>\n")
	fmt.Fprintf(&b, "<!-- evidencefleet replay corpus: reconstructed from Climate-FEVER evidence sentences %s of %q (Wikipedia text, CC BY-SA); the rest of the article is not part of the dataset. -->\n",
		strings.Join(ids, ","), a.title)
	b.WriteString(`<body class="skin-vector skin-vector-search-vue mediawiki ltr sitedir-ltr mw-hide-empty-elt ns-0 ns-subject page-` + html.EscapeString(strings.ReplaceAll(a.title, " ", "_")) + ` rootpage action-view skin--responsive">` + "\n")
	b.WriteString(`<a class="mw-jump-link" href="#bodyContent">Jump to content</a>` + "\n")
	b.WriteString(`<div class="vector-header-container"><header class="vector-header mw-header">` +
		`<div class="vector-header-start"><nav class="vector-main-menu-landmark" aria-label="Site"><div id="vector-main-menu-dropdown" class="vector-dropdown vector-main-menu-dropdown">` +
		`<label for="vector-main-menu-dropdown-checkbox" class="vector-dropdown-label" aria-hidden="true"><span class="vector-dropdown-label-text">Main menu</span></label>` +
		`<div class="vector-dropdown-content"><div id="vector-main-menu" class="vector-main-menu vector-pinnable-element">` +
		`<div class="vector-pinnable-header"><div class="vector-pinnable-header-label">Main menu</div><button class="vector-pinnable-header-toggle-button vector-pinnable-header-pin-button">move to sidebar</button><button class="vector-pinnable-header-toggle-button vector-pinnable-header-unpin-button">hide</button></div>` +
		`<div id="p-navigation" class="vector-menu mw-portlet mw-portlet-navigation"><div class="vector-menu-heading">Navigation</div><div class="vector-menu-content"><ul class="vector-menu-content-list">` +
		`<li id="n-mainpage-description"><a href="/wiki/Main_Page" title="Visit the main page [z]" accesskey="z"><span>Main page</span></a></li>` +
		`<li id="n-contents"><a href="/wiki/Wikipedia:Contents" title="Guides to browsing Wikipedia"><span>Contents</span></a></li>` +
		`<li id="n-currentevents"><a href="/wiki/Portal:Current_events" title="Articles related to current events"><span>Current events</span></a></li>` +
		`<li id="n-randompage"><a href="/wiki/Special:Random" title="Visit a randomly selected article [x]" accesskey="x"><span>Random article</span></a></li>` +
		`<li id="n-aboutsite"><a href="/wiki/Wikipedia:About" title="Learn about Wikipedia and how it works"><span>About Wikipedia</span></a></li>` +
		`<li id="n-contactpage"><a href="//en.wikipedia.org/wiki/Wikipedia:Contact_us" title="How to contact Wikipedia"><span>Contact us</span></a></li>` +
		`</ul></div></div></div></div></div></nav>` +
		`<a href="/wiki/Main_Page" class="mw-logo"><span class="mw-logo-container skin-invert"><strong class="mw-logo-wordmark">Wikipedia</strong><em class="mw-logo-tagline">The Free Encyclopedia</em></span></a></div>` +
		`<div class="vector-header-end"><div id="p-search" role="search" class="vector-search-box-vue vector-search-box-collapses vector-search-box-show-thumbnail vector-search-box-auto-expand-width vector-search-box">` +
		`<form action="/w/index.php" id="searchform" class="cdx-search-input cdx-search-input--has-end-button"><div id="simpleSearch" class="cdx-search-input__input-wrapper">` +
		`<input class="cdx-text-input__input" type="search" name="search" placeholder="Search Wikipedia" aria-label="Search Wikipedia" autocapitalize="sentences" title="Search Wikipedia [f]" accesskey="f" id="searchInput">` +
		`<input type="hidden" name="title" value="Special:Search"></div><button class="cdx-button cdx-search-input__end-button">Search</button></form></div>` +
		`<nav class="vector-user-links" aria-label="Personal tools"><ul class="vector-menu-content-list">` +
		`<li id="pt-createaccount-2"><a href="/w/index.php?title=Special:CreateAccount" title="You are encouraged to create an account and log in; however, it is not mandatory"><span>Create account</span></a></li>` +
		`<li id="pt-login-2"><a href="/w/index.php?title=Special:UserLogin" title="You're encouraged to log in; however, it's not mandatory. [o]" accesskey="o"><span>Log in</span></a></li>` +
		`</ul></nav></div></header></div>` + "\n")
	b.WriteString(`<div class="mw-page-container"><div class="mw-page-container-inner">` + "\n")
	b.WriteString(`<div class="mw-content-container"><main id="content" class="mw-body">` + "\n")
	b.WriteString(`<header class="mw-body-header vector-page-titlebar">` +
		`<h1 id="firstHeading" class="firstHeading mw-first-heading"><span class="mw-page-title-main">` + title + `</span></h1>` +
		`<div id="p-lang-btn" class="vector-dropdown mw-portlet mw-portlet-lang"><label class="vector-dropdown-label"><span class="vector-dropdown-label-text">Languages</span></label></div></header>` + "\n")
	b.WriteString(`<div class="vector-page-toolbar"><nav aria-label="Namespaces"><ul><li id="ca-nstab-main" class="selected"><a href="` + html.EscapeString(pageURL) + `" title="View the content page [c]" accesskey="c"><span>Article</span></a></li>` +
		`<li id="ca-talk"><a href="/wiki/Talk:` + html.EscapeString(wikiEscape(strings.ReplaceAll(a.title, " ", "_"))) + `" rel="discussion" title="Discuss improvements to the content page [t]" accesskey="t"><span>Talk</span></a></li></ul></nav>` +
		`<nav aria-label="Views"><ul><li id="ca-view" class="selected"><a href="` + html.EscapeString(pageURL) + `"><span>Read</span></a></li>` +
		`<li id="ca-edit"><a href="/w/index.php?title=` + html.EscapeString(wikiEscape(strings.ReplaceAll(a.title, " ", "_"))) + `&amp;action=edit" title="Edit this page [e]" accesskey="e"><span>Edit</span></a></li>` +
		`<li id="ca-history"><a href="/w/index.php?title=` + html.EscapeString(wikiEscape(strings.ReplaceAll(a.title, " ", "_"))) + `&amp;action=history" title="Past revisions of this page [h]" accesskey="h"><span>View history</span></a></li></ul></nav>` +
		`<nav aria-label="Tools"><div id="vector-page-tools-dropdown" class="vector-dropdown"><label class="vector-dropdown-label"><span class="vector-dropdown-label-text">Tools</span></label></div></nav></div>` + "\n")
	b.WriteString(`<div id="bodyContent" class="vector-body" aria-labelledby="firstHeading">` + "\n")
	b.WriteString(`<div class="vector-body-before-content"><div class="mw-indicators"></div><div id="siteSub" class="noprint">From Wikipedia, the free encyclopedia</div></div>` + "\n")
	b.WriteString(`<div id="contentSub"><div id="mw-content-subtitle"></div></div>` + "\n")
	b.WriteString(`<div id="mw-content-text" class="mw-body-content"><div class="mw-content-ltr mw-parser-output" lang="en" dir="ltr">` + "\n")
	for _, para := range paragraphs(a.sentences, 3) {
		b.WriteString("<p>")
		for i, s := range para {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(html.EscapeString(s.text))
		}
		b.WriteString("\n</p>\n")
	}
	b.WriteString(`<!-- NewPP limit report; Cached time: replay; Complications: [vary-revision-sha1]; CPU time usage: 0.412 seconds -->` + "\n")
	b.WriteString("</div></div>\n")
	b.WriteString(`<div class="printfooter" data-nosnippet="">Retrieved from "<a dir="ltr" href="` + html.EscapeString(pageURL) + `">` + html.EscapeString(pageURL) + `</a>"</div>` + "\n")
	b.WriteString(`<div id="catlinks" class="catlinks" data-mw="interface"><div id="mw-normal-catlinks" class="mw-normal-catlinks"><a href="/wiki/Help:Category" title="Help:Category">Categories</a>: <ul>` +
		`<li><a href="/wiki/Category:Articles_with_short_description" title="Category:Articles with short description">Articles with short description</a></li>` +
		`<li><a href="/wiki/Category:Use_dmy_dates" title="Category:Use dmy dates">Use dmy dates</a></li></ul></div></div>` + "\n")
	b.WriteString("</div>\n</main>\n")
	b.WriteString(`<div class="mw-footer-container"><footer id="footer" class="mw-footer" role="contentinfo"><ul id="footer-info">` +
		`<li id="footer-info-copyright">Text is available under the <a rel="license" href="https://en.wikipedia.org/wiki/Wikipedia:Text_of_the_Creative_Commons_Attribution-ShareAlike_4.0_International_License">Creative Commons Attribution-ShareAlike License 4.0</a><a rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/" style="display:none;"></a>;` +
		` additional terms may apply. By using this site, you agree to the <a href="https://foundation.wikimedia.org/wiki/Special:MyLanguage/Policy:Terms_of_Use">Terms of Use</a> and <a href="https://foundation.wikimedia.org/wiki/Special:MyLanguage/Policy:Privacy_policy">Privacy Policy</a>.` +
		` Wikipedia® is a registered trademark of the <a href="https://wikimediafoundation.org/">Wikimedia Foundation, Inc.</a>, a non-profit organization.</li></ul>` +
		`<ul id="footer-places"><li id="footer-places-privacy"><a href="https://foundation.wikimedia.org/wiki/Special:MyLanguage/Policy:Privacy_policy">Privacy policy</a></li>` +
		`<li id="footer-places-about"><a href="/wiki/Wikipedia:About">About Wikipedia</a></li>` +
		`<li id="footer-places-disclaimers"><a href="/wiki/Wikipedia:General_disclaimer">Disclaimers</a></li>` +
		`<li id="footer-places-contact"><a href="//en.wikipedia.org/wiki/Wikipedia:Contact_us">Contact Wikipedia</a></li>` +
		`<li id="footer-places-wm-codeofconduct"><a href="https://foundation.wikimedia.org/wiki/Special:MyLanguage/Policy:Universal_Code_of_Conduct">Code of Conduct</a></li>` +
		`<li id="footer-places-developers"><a href="https://developer.wikimedia.org">Developers</a></li>` +
		`<li id="footer-places-statslink"><a href="https://stats.wikimedia.org/#/en.wikipedia.org">Statistics</a></li>` +
		`<li id="footer-places-cookiestatement"><a href="https://foundation.wikimedia.org/wiki/Special:MyLanguage/Policy:Cookie_statement">Cookie statement</a></li>` +
		`<li id="footer-places-mobileview"><a href="//en.m.wikipedia.org/w/index.php?title=` + html.EscapeString(wikiEscape(strings.ReplaceAll(a.title, " ", "_"))) + `&amp;mobileaction=toggle_view_mobile" class="noprint stopMobileRedirectToggle">Mobile view</a></li></ul>` +
		`</footer></div>` + "\n")
	b.WriteString("</div></div></div>\n")
	b.WriteString(`<script>(RLQ=window.RLQ||[]).push(function(){mw.config.set({"wgHostname":"mw-web.replay","wgBackendResponseTime":142,"wgPageParseReport":{"limitreport":{"cputime":"0.412","walltime":"0.530"}}});});</script>` + "\n")
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","name":` + jsonString(a.title) + `,"url":` + jsonString(pageURL) +
		`,"publisher":{"@type":"Organization","name":"Wikimedia Foundation, Inc."}}</script>` + "\n")
	b.WriteString("</body>\n</html>\n")
	return b.String()
}
