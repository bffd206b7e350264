package extract

import "golang.org/x/net/html/atom"

// How start and end tags open and close special elements in checkBuild's
// blockModel: html.Parse's rules for them, followed only where they surely
// apply (see blockModel.popTo).

// blockStart follows a start tag of a special element or scope boundary.
func (s *buildScan) blockStart(a atom.Atom, selfClosing bool) {
	b := &s.blocks
	switch {
	case s.frameset:
		b.unsureFrom(0)
		return
	case s.foreign.maybe() && !breakout(a):
		// Maybe a foreign element: nothing pops; it may be open.
		if pushesBlock(a) && !selfClosing {
			b.push(a, s.nextPos(), false)
		}
		return
	case s.foreign.maybe():
		b.unsureFrom(b.lowest(foreignTags)) // a breakout ends foreign content
	}
	sure := true
	switch a {
	case atom.Li:
		b.unsureItem(atom.Li, atom.Li)
		b.popTo(pTags, buttonScopeTags)
	case atom.Dd, atom.Dt:
		b.unsureItem(atom.Dd, atom.Dt)
		b.popTo(pTags, buttonScopeTags)
	case atom.Table:
		if p := b.topmost(pTags); p >= 0 {
			b.unsureFrom(p) // closed out of quirks mode only
		}
		if t := b.topmost(tableTags); t >= 0 {
			b.unsureFrom(t) // a table in a table's own content closes it
		}
	case atom.Button:
		b.popTo([]atom.Atom{atom.Button}, defaultScopeTags)
	case atom.Select:
		b.popTo([]atom.Atom{atom.Select}, defaultScopeTags)
		sure = false // not opened when one was closed
	case atom.Input:
		b.popTo([]atom.Atom{atom.Select}, defaultScopeTags)
	case atom.Form:
		b.popTo(pTags, buttonScopeTags)
		sure = false // ignored inside a form
	case atom.Td, atom.Th, atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot, atom.Caption, atom.Colgroup, atom.Col:
		b.closeTableContent(false)
		return
	case atom.Option, atom.Optgroup, atom.Rb, atom.Rtc, atom.Rp, atom.Rt:
		b.unsureTop(impliedEnd)
	default:
		if closesP(a) {
			b.popTo(pTags, buttonScopeTags)
		}
		if isHeading(a) {
			b.unsureTop(isHeading) // a heading closes a heading that is the current node
		}
	}
	if pushesBlock(a) && !(selfClosing && (a == atom.Svg || a == atom.Math)) {
		b.push(a, s.nextPos(), sure)
	}
}

// blockEnd follows an end tag that may close special elements.
func (s *buildScan) blockEnd(a atom.Atom) {
	b := &s.blocks
	if s.frameset {
		return
	}
	switch {
	case a == atom.P:
		b.popTo(pTags, buttonScopeTags)
	case a == atom.Li:
		b.popTo(itemTags, listScopeTags)
	case a == atom.Dd || a == atom.Dt:
		b.popTo([]atom.Atom{a}, defaultScopeTags)
	case isHeading(a):
		b.popTo(headingTags, defaultScopeTags)
	case a == atom.Form:
		if i := b.topmost([]atom.Atom{atom.Form}); i >= 0 {
			b.open[i].sure = false // removed from the stack, not popped
		}
	case a == atom.Template:
		b.popTo([]atom.Atom{atom.Template}, nil)
	case a == atom.Table:
		b.popTo(tableTags, []atom.Atom{atom.Template, atom.Html})
	case a == atom.Td || a == atom.Th || a == atom.Tr || a == atom.Caption || a == atom.Colgroup || isTableBody(a):
		b.closeTableContent(true) // only if that part is open, which is not followed here
	case a == atom.Svg || a == atom.Math:
		if i := b.topmost([]atom.Atom{a}); i >= 0 && (s.foreign.unsure || i != len(b.open)-1) {
			b.unsureFrom(b.lowest(foreignTags))
		} else if i >= 0 {
			b.truncate(i) // the foreign content ends
		}
	case closesP(a) || a == atom.Button || a == atom.Select || a == atom.Applet || a == atom.Marquee || a == atom.Object:
		b.popTo([]atom.Atom{a}, defaultScopeTags)
	}
}

// unsureItem follows <li> (or <dd>, <dt>) closing the open item if only
// <address>, <div> and <p> are above it: marked possibly closed.
func (b *blockModel) unsureItem(x, y atom.Atom) {
	for i := len(b.open) - 1; i >= 0; i-- {
		switch a := b.open[i].a; {
		case a == x || a == y:
			b.unsureFrom(i)
			return
		case a != atom.Address && a != atom.Div && a != atom.P:
			return
		}
	}
}

// unsureTop marks the topmost elements that match accepts, down to the
// first that it does not, as possibly closed (the parser pops them if
// nothing else is above them).
func (b *blockModel) unsureTop(match func(atom.Atom) bool) {
	for i := len(b.open) - 1; i >= 0 && match(b.open[i].a); i-- {
		b.unsureFrom(i)
	}
}

func isTableBody(a atom.Atom) bool { return a == atom.Tbody || a == atom.Thead || a == atom.Tfoot }
func impliedEnd(a atom.Atom) bool  { return a == atom.P || a == atom.Li || a == atom.Dd || a == atom.Dt }
func isHeading(a atom.Atom) bool {
	return a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6
}

// closesP reports start tags (and their end tags' element) that close an
// open <p> in button scope first.
func closesP(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure,
		atom.Footer, atom.Header, atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P,
		atom.Search, atom.Section, atom.Summary, atom.Ul, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Pre, atom.Listing, atom.Plaintext, atom.Xmp, atom.Hr:
		return true
	}
	return false
}

// pushesBlock reports start tags that open an element blockModel holds:
// special elements and scope boundaries that stay open, but table parts.
func pushesBlock(a atom.Atom) bool {
	switch a {
	case atom.Option, atom.Optgroup, atom.Rb, atom.Rp, atom.Rt, atom.Rtc, atom.Frameset, atom.Hr,
		atom.Input, atom.Col, atom.Frame, atom.Td, atom.Th, atom.Tr, atom.Tbody, atom.Thead,
		atom.Tfoot, atom.Caption, atom.Colgroup:
		return false
	}
	return blockTag(a)
}
