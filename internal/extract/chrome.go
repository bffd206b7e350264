package extract

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page chrome removal.
//
// pruneChrome runs on the parsed page before go-readability (and before the
// fallback walk). It removes what is never article text on any site:
// landmarks (<nav>, <aside>, <footer>, <dialog>, <menu>, <search>, a site
// <header>, ARIA roles navigation, search, banner, contentinfo, …), forms
// that hold no prose, hidden elements, skip links and elements whose class
// or id names a chrome widget (see skipByClass).
//
// Doing this before readability matters for short articles: readability
// retries with ever weaker filters while the article is under 500
// characters and then returns the attempt with the LONGEST text, which is
// the one that kept the most page chrome. It also works around readability
// removing the <html> element itself when the element's class matches its
// "unlikely candidate" pattern (MediaWiki's
// "vector-feature-language-in-header-enabled" contains "header"; see
// mozilla/readability#835): readability then scores nothing and returns the
// whole <body>, chrome included.

// pruneChrome removes page chrome from the <body> of doc (see above) and the
// class and id of the <html> element. title is the page's <title>; the <h1>
// of a removed site header is kept when it is the page title (see
// isPageTitle).
func pruneChrome(doc *html.Node, pageURL *url.URL, title string) {
	root := firstElem(doc, atom.Html)
	if root == nil {
		return
	}
	// Document-level state classes ("client-js", "has-header", …) never
	// describe content, but readability's unlikely-candidate test would
	// remove the whole document for some of them.
	removeAttr(root, "class")
	removeAttr(root, "id")
	body := firstElem(root, atom.Body)
	if body == nil {
		return
	}
	var walk func(n *html.Node, scoped bool)
	walk = func(n *html.Node, scoped bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				if strings.EqualFold(attrOr(c, "hidden"), "until-found") {
					// Collapsed but findable content (e.g. mobile
					// Wikipedia sections) is content.
					removeAttr(c, "hidden")
				}
				if isChrome(c, scoped, pageURL) {
					if c.DataAtom == atom.Header {
						if h1 := titleHeading(c, title); h1 != nil {
							h1.Parent.RemoveChild(h1)
							n.InsertBefore(h1, c)
						}
					}
					n.RemoveChild(c)
				} else {
					walk(c, scoped || sectioning(c))
				}
			}
			c = next
		}
	}
	walk(body, false)
}

// isChrome reports an element that pruneChrome removes. scoped tells whether
// n is inside sectioning content (see sectioning), where a <header> is the
// header of that section rather than the site banner.
func isChrome(n *html.Node, scoped bool, pageURL *url.URL) bool {
	if hidden(n) || isSkipLink(n, pageURL) {
		return true
	}
	if chromeByClass(n) {
		return true
	}
	if boilerElem[n.DataAtom] || boilerRole[role(n)] || n.Data == "search" {
		return true
	}
	switch n.DataAtom {
	case atom.Header:
		// ARIA: a <header> outside sectioning content is the banner.
		return !scoped
	case atom.Form:
		// Search boxes, log-in and comment forms; some sites (ASP.NET)
		// wrap the whole page in one form, which is kept.
		return !holdsProse(n)
	}
	return false
}

// role returns the first token of n's ARIA role, lower-cased.
func role(n *html.Node) string {
	if f := strings.Fields(strings.ToLower(attrOr(n, "role"))); len(f) > 0 {
		return f[0]
	}
	return ""
}

// sectioning reports elements that scope a <header> or <footer> to
// themselves (the HTML-ARIA rule for the banner and contentinfo roles).
func sectioning(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Article, atom.Aside, atom.Main, atom.Nav, atom.Section:
		return true
	}
	switch role(n) {
	case "article", "complementary", "main", "navigation", "region":
		return true
	}
	return false
}

// chromeByClass reports an element whose class or id names a chrome widget
// (skipByClass) and that is not prose: a class or id names a widget by one
// token, the element as a whole decides. An article, a main part or a block
// of prose is never chrome, whatever hook a script gave it ("url-breadcrumb"
// on a publishing platform's <article>).
func chromeByClass(n *html.Node) bool { return skipByClass(n) && !proseElement(n) }

// proseElement reports an element that is, or holds, the page's prose: an
// <article> or <main> (or the ARIA roles), or one that holdsProse.
func proseElement(n *html.Node) bool {
	switch {
	case n.DataAtom == atom.Article || n.DataAtom == atom.Main:
		return true
	case role(n) == "main" || role(n) == "article":
		return true
	}
	return holdsProse(n)
}

// holdsProse reports an element that wraps page content: it contains a
// <main> or <article>, or at least 200 characters of paragraphs of prose
// (each at least leadRunes long and holding no form control: a comment form
// lays out its fields, labels and "You are commenting as …" notes in <p>s).
func holdsProse(form *html.Node) bool {
	chars := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case c.DataAtom == atom.Main || c.DataAtom == atom.Article || role(c) == "main":
				return true
			case c.DataAtom == atom.P:
				n := utf8.RuneCountInString(collapseSpace(textContent(c)))
				if n < leadRunes || holdsControl(c) {
					continue // a caption, a note or a form's field, not prose
				}
				if chars += n; chars >= 200 {
					return true
				}
			default:
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	return walk(form)
}

// holdsControl reports a form control (input, textarea, select, button)
// inside n.
func holdsControl(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Input, atom.Textarea, atom.Select, atom.Button:
			return true
		}
		if holdsControl(c) {
			return true
		}
	}
	return false
}

// skipLinkPhrases start the text of skip links ("Skip to content", "Jump
// to navigation", …), lower-case, in a few common languages.
var skipLinkPhrases = []string{
	"skip to ", "skip navigation", "skip nav", "skip main navigation",
	"skip to main content", "jump to ", "back to top", "scroll to top",
	"zum inhalt", "direkt zum inhalt", "zur navigation", "springe zu",
	"aller au contenu", "passer au contenu", "aller à la navigation",
	"saltar al contenido", "ir al contenido", "vai al contenuto",
	"salta al contenuto", "naar de inhoud", "ga naar de inhoud",
}

// isSkipLink reports an accessibility skip link: an <a> pointing into the
// same page whose text is a "skip/jump to …" phrase.
func isSkipLink(n *html.Node, pageURL *url.URL) bool {
	if n.DataAtom != atom.A || !samePageFragment(attrOr(n, "href"), pageURL) {
		return false
	}
	t := strings.ToLower(collapseSpace(textContent(n))) + " "
	for _, p := range skipLinkPhrases {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// samePageFragment reports an href that points into the page itself: "#…",
// or pageURL with a fragment (readability makes hrefs absolute).
func samePageFragment(href string, pageURL *url.URL) bool {
	href = strings.TrimSpace(href)
	if strings.HasPrefix(href, "#") {
		return true
	}
	if pageURL == nil || !strings.Contains(href, "#") {
		return false
	}
	u, err := pageURL.Parse(href)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Scheme, pageURL.Scheme) && strings.EqualFold(u.Host, pageURL.Host) &&
		u.EscapedPath() == pageURL.EscapedPath() && u.RawQuery == pageURL.RawQuery
}

// titleHeading returns the first <h1> under header whose text is the page
// title, or nil.
func titleHeading(header *html.Node, title string) *html.Node {
	h1 := firstElem(header, atom.H1)
	if h1 == nil || hidden(h1) || !isPageTitle(collapseSpace(textContent(h1)), title) {
		return nil
	}
	return h1
}

// isPageTitle reports whether heading is the page's title: equal to the
// <title> or its first part before a site-name separator ("Heading | Site").
// A heading that only matches the site-name part is not the title.
func isPageTitle(heading, title string) bool {
	h, t := strings.ToLower(heading), strings.ToLower(collapseSpace(title))
	if h == "" || t == "" {
		return false
	}
	if h == t {
		return true
	}
	if rest, ok := strings.CutPrefix(t, h+" "); ok {
		r, _ := utf8.DecodeRuneInString(rest)
		return strings.ContainsRune(titleSeparators, r)
	}
	// "Site: Heading": the heading after the site name, which is the
	// shorter part (so "Heading | Site" never makes "Site" the title).
	if rest, ok := strings.CutSuffix(t, " "+h); ok {
		rest = strings.TrimSpace(rest)
		r, _ := utf8.DecodeLastRuneInString(rest)
		return strings.ContainsRune(titleSeparators, r) && utf8.RuneCountInString(rest) < utf8.RuneCountInString(h)
	}
	return false
}

// titleSeparators separate a page title from the site name in <title>.
const titleSeparators = "-|–—:·•»/"

// firstElem returns the first element with atom a in n's subtree (n
// included, depth first), or nil.
func firstElem(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := firstElem(c, a); f != nil {
			return f
		}
	}
	return nil
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Namespace != "" || a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}
