package extract

import (
	"bytes"

	"golang.org/x/net/html/atom"
)

// The models checkBuild keeps of the tree builder's state: the tables it
// is in and whether it may be in foreign content (<svg>, <math>), and what
// each tag does to it. See nodebudget.go.

// tableCtx is a table that may be open.
type tableCtx struct {
	inCell  bool      // in a cell or caption, not in the table's own content
	cell    atom.Atom // td, th or caption
	cellPos int64     // position of the cell (its marker): entries above it are the cell's
	flat    bool      // the cell holds phrasing content only: its end surely clears its formatting elements
	foster  int64     // bytes of the text node before the table, which foster-parented text joins
	blank   int64     // bytes of the white space last put in the table's own content
	body    bool      // a <tbody>, <thead> or <tfoot> is open
	row     bool      // a <tr> is open
}

func (s *buildScan) topTable() *tableCtx {
	if len(s.tables) == 0 {
		return nil
	}
	return &s.tables[len(s.tables)-1]
}

// tableStart follows a start tag in or around tables.
func (s *buildScan) tableStart(a atom.Atom) {
	t := s.topTable()
	if t != nil && t.inCell && blockTag(a) {
		t.flat = false
	}
	s.tableImplies(t, a)
	switch a {
	case atom.Table:
		base := s.run
		if t != nil && !t.inCell {
			s.tables = s.tables[:len(s.tables)-1] // a <table> in a table closes it
			base = 0
		}
		s.tables = append(s.tables, tableCtx{foster: base})
		s.run = 0
	case atom.Td, atom.Th, atom.Caption:
		if t == nil {
			return // ignored outside tables
		}
		s.closeCell(t)
		*t = tableCtx{inCell: true, cell: a, cellPos: s.pos, flat: true, foster: t.foster, blank: t.blank, body: t.body, row: t.row}
	case atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot, atom.Colgroup, atom.Col:
		if t != nil {
			s.closeCell(t)
		}
	}
}

// tableImplies counts the table parts a start tag implies (a <td> with no
// row open implies a <tr>, and a <tbody> with none open) and follows which
// are open. Outside a table, or maybe in foreign content, it counts all.
func (s *buildScan) tableImplies(t *tableCtx, a atom.Atom) {
	unknown := t == nil || s.foreign.maybe()
	switch a {
	case atom.Td, atom.Th:
		if unknown || !t.row {
			s.est.implied++
		}
		if unknown || !t.body {
			s.est.implied++
		}
	case atom.Tr:
		if unknown || !t.body {
			s.est.implied++
		}
	case atom.Col:
		s.est.implied++ // its <colgroup>, at most
	}
	if t == nil {
		return
	}
	switch a {
	case atom.Td, atom.Th, atom.Tr:
		t.body, t.row = true, true
	case atom.Tbody, atom.Thead, atom.Tfoot:
		t.body, t.row = true, false
	case atom.Caption, atom.Colgroup, atom.Col:
		t.body, t.row = false, false
	}
}

// tableEnd follows an end tag in or around tables.
func (s *buildScan) tableEnd(a atom.Atom) {
	t := s.topTable()
	if t == nil {
		return
	}
	switch a {
	case atom.Td, atom.Th, atom.Caption:
		if t.inCell && t.cell == a {
			s.closeCell(t)
		}
	case atom.Tr:
		s.closeCell(t)
		t.row = false
	case atom.Tbody, atom.Thead, atom.Tfoot:
		s.closeCell(t)
		t.body, t.row = false, false
	case atom.Table:
		s.closeCell(t)
		s.tables = s.tables[:len(s.tables)-1]
		s.run = 0 // the table is the last child now
	}
}

// closeCell leaves a cell; the parser clears the active formatting
// elements up to the cell's marker, which is followed here only for a cell
// of phrasing content.
func (s *buildScan) closeCell(t *tableCtx) {
	if t.inCell && t.flat {
		s.afe.clearAfter(t.cellPos)
	}
	t.inCell = false
}

// foreignModel follows whether the parser may be in <svg> or <math>
// content: exactly while only foreign elements open there, and "maybe"
// for the rest of the page once HTML opens inside them.
type foreignModel struct {
	open   [][]byte // foreign elements open, lower case, the <svg> or <math> first
	unsure bool
}

func (f *foreignModel) maybe() bool { return len(f.open) > 0 || f.unsure }

func (f *foreignModel) start(a atom.Atom, name []byte, selfClosing bool) {
	switch {
	case f.unsure:
	case len(f.open) == 0:
		if (a == atom.Svg || a == atom.Math) && !selfClosing {
			f.open = append(f.open, bytes.Clone(name))
		}
	case integrationPoint(f.open[len(f.open)-1]) || breakout(a) || len(f.open) >= maxOpen:
		// HTML opens inside foreign content: what closes what is the
		// tree builder's to know.
		f.unsure, f.open = true, nil
	case !selfClosing:
		f.open = append(f.open, bytes.Clone(name))
	}
}

func (f *foreignModel) end(name []byte) {
	for i := len(f.open) - 1; i >= 0; i-- {
		if bytes.EqualFold(f.open[i], name) {
			f.open = f.open[:i]
			return
		}
	}
	if len(f.open) > 0 {
		// The parser reads it as HTML, which may pop foreign elements.
		f.unsure, f.open = true, nil
	}
}

// integrationPoint reports foreign elements whose content is HTML
// (annotation-xml only with some encodings; counted always).
func integrationPoint(name []byte) bool {
	switch string(name) {
	case "foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml":
		return true
	}
	return false
}

// formatting reports the formatting elements of the spec.
func formatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr,
		atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// blockTag reports start tags after which a special element or scope
// boundary may stay open, or which may pop open elements: everything but
// phrasing, void and raw-text elements.
func blockTag(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Applet, atom.Article, atom.Aside, atom.Blockquote, atom.Button,
		atom.Caption, atom.Center, atom.Col, atom.Colgroup, atom.Dd, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure,
		atom.Footer, atom.Form, atom.Frame, atom.Frameset, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Header, atom.Hgroup, atom.Hr, atom.Input, atom.Li, atom.Listing,
		atom.Main, atom.Marquee, atom.Menu, atom.Nav, atom.Object, atom.Ol, atom.P, atom.Plaintext,
		atom.Pre, atom.Search, atom.Section, atom.Select, atom.Summary, atom.Table, atom.Tbody,
		atom.Td, atom.Template, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul, atom.Xmp,
		atom.Option, atom.Optgroup, atom.Rb, atom.Rp, atom.Rt, atom.Rtc, atom.Svg, atom.Math:
		return true
	}
	return false
}

// special reports end tags that may pop a <p> (the special elements, and
// <select>); any other end tag stops at the first special element.
func special(a atom.Atom) bool {
	switch a {
	case atom.Select, atom.Search, atom.Dialog:
		return true
	}
	return a != 0 && blockTag(a) && a != atom.Svg && a != atom.Math
}

// reconstructs reports start tags before which the parser may reconstruct
// the active formatting elements.
func reconstructs(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Body, atom.Frameset, atom.Base, atom.Basefont, atom.Bgsound, atom.Link,
		atom.Meta, atom.Noframes, atom.Script, atom.Style, atom.Template, atom.Title, atom.Address,
		atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details, atom.Dialog, atom.Dir,
		atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header,
		atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Search, atom.Section,
		atom.Summary, atom.Ul, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre,
		atom.Listing, atom.Form, atom.Li, atom.Dd, atom.Dt, atom.Plaintext, atom.Table, atom.Param,
		atom.Source, atom.Track, atom.Hr, atom.Textarea, atom.Iframe, atom.Noembed, atom.Noscript,
		atom.Rb, atom.Rtc, atom.Rp, atom.Rt, atom.Caption, atom.Col, atom.Colgroup, atom.Frame,
		atom.Head, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr:
		return false
	}
	return true
}

// breakout reports start tags that end foreign content (html.Parse's
// breakout list; <font> only with some attributes, counted always).
func breakout(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd,
		atom.Div, atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu,
		atom.Meta, atom.Nobr, atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span,
		atom.Strong, atom.Strike, atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul,
		atom.Var, atom.Font:
		return true
	}
	return false
}

// tableInternal reports start tags that, in a table, go into the table or
// are ignored rather than being foster-parented before it.
func tableInternal(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Col, atom.Colgroup, atom.Tbody, atom.Td, atom.Tfoot, atom.Th,
		atom.Thead, atom.Tr, atom.Table, atom.Style, atom.Script, atom.Template, atom.Input,
		atom.Form, atom.Html, atom.Body, atom.Head, atom.Frame, atom.Frameset:
		return true
	}
	return false
}

// ignorable reports start tags the parser may ignore outside tables (so
// that text after them may join the text before them).
func ignorable(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Body, atom.Head, atom.Frame, atom.Frameset, atom.Caption, atom.Col,
		atom.Colgroup, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Form,
		atom.Table:
		return true
	}
	return false
}

// headTag reports start tags that the parser may put in the head (no
// body is implied by them).
func headTag(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Head, atom.Base, atom.Basefont, atom.Bgsound, atom.Link, atom.Meta,
		atom.Noframes, atom.Script, atom.Style, atom.Template, atom.Title, atom.Noscript:
		return true
	}
	return false
}

// tablePart reports the start tags of a table's structure.
func tablePart(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Col, atom.Colgroup, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr:
		return true
	}
	return false
}
