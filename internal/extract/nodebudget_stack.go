package extract

import (
	"sort"

	"golang.org/x/net/html/atom"
)

// openBlock is a special element or scope boundary that may be open.
type openBlock struct {
	a    atom.Atom
	pos  int64
	sure bool // surely open; else the parser may have closed it already
}

// blockModel holds every special element and scope boundary the parser
// has open, in stack order, and maybe more (table parts, which the parser
// pops with their table's content, are left out; their table stands for
// them): it pops an element only when the parser surely pops it (it is
// surely open and nothing above it stops the parser's scope), and marks
// elements the parser may have popped as not sure.
type blockModel struct {
	open   []openBlock
	byAtom map[atom.Atom][]int // indices in open of each tag's elements, bottom up
	unsure int                 // the elements from this index up are all not sure
}

// maxSureSearch bounds how far popTo looks for a surely open element under
// elements that may be closed; past it, it counts on none.
const maxSureSearch = 64

// above returns the elements that may be open above position pos.
func (b *blockModel) above(pos int64) int {
	return len(b.open) - sort.Search(len(b.open), func(i int) bool { return b.open[i].pos > pos })
}

func (b *blockModel) push(a atom.Atom, pos int64, sure bool) {
	if b.byAtom == nil {
		b.byAtom = map[atom.Atom][]int{}
	}
	b.byAtom[a] = append(b.byAtom[a], len(b.open))
	b.open = append(b.open, openBlock{a: a, pos: pos, sure: sure})
	if sure {
		b.unsure = len(b.open)
	}
}

// truncate pops the elements from index i up.
func (b *blockModel) truncate(i int) {
	for j := len(b.open) - 1; j >= i; j-- {
		a := b.open[j].a
		b.byAtom[a] = b.byAtom[a][:len(b.byAtom[a])-1]
	}
	b.open = b.open[:i]
	b.unsure = min(b.unsure, i)
}

// unsureFrom marks the elements from index i up as possibly closed.
func (b *blockModel) unsureFrom(i int) {
	for j := i; j < b.unsure; j++ {
		b.open[j].sure = false
	}
	b.unsure = min(b.unsure, i)
}

// topmost returns the index of the topmost open element of a tag in tags,
// or -1.
func (b *blockModel) topmost(tags []atom.Atom) int {
	top := -1
	for _, a := range tags {
		if l := b.byAtom[a]; len(l) > 0 {
			top = max(top, l[len(l)-1])
		}
	}
	return top
}

// lowest returns the index of the lowest open element of a tag in tags,
// or len(open).
func (b *blockModel) lowest(tags []atom.Atom) int {
	low := len(b.open)
	for _, a := range tags {
		if l := b.byAtom[a]; len(l) > 0 {
			low = min(low, l[0])
		}
	}
	return low
}

// popTo follows the parser popping the topmost open element of a tag in
// tags, with everything above it, unless an element of a tag in stop is
// above that one (it is not in scope).
func (b *blockModel) popTo(tags, stop []atom.Atom) {
	top := b.topmost(tags)
	if top < 0 {
		return // none open: the parser pops nothing
	}
	if b.topmost(stop) > top {
		b.unsureFrom(b.lowest(tags))
		return
	}
	if b.open[top].sure {
		b.truncate(top)
		return
	}
	// The parser pops from the topmost one it has open; look for one
	// surely open below, with no stop in between.
	floor := max(b.topmost(stop), top-maxSureSearch)
	for i := top - 1; i > floor; i-- {
		if b.open[i].sure && contains(tags, b.open[i].a) {
			b.truncate(top + 1)
			b.unsureFrom(i)
			return
		}
	}
	b.unsureFrom(b.lowest(tags)) // it may have none open
}

func contains(tags []atom.Atom, a atom.Atom) bool {
	for _, t := range tags {
		if t == a {
			return true
		}
	}
	return false
}

// closeTableContent follows a table part (a cell, row, body, caption or
// column group) opening, or maybe closing: the parser pops what is open in
// its table above the part's place, and the table stands in for the part.
func (b *blockModel) closeTableContent(maybe bool) {
	t := b.topmost(tableScopeTags)
	if t < 0 || b.open[t].a != atom.Table {
		return // no table, or a template above it
	}
	if b.open[t].sure && !maybe {
		b.truncate(t + 1)
	} else {
		b.unsureFrom(t + 1)
	}
}

// The tags of the scopes of html.Parse (<svg> and <math> stand for their
// integration points, which end the default scope).
var (
	defaultScopeTags = []atom.Atom{atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td, atom.Th,
		atom.Marquee, atom.Object, atom.Template, atom.Select, atom.Svg, atom.Math}
	buttonScopeTags = append([]atom.Atom{atom.Button}, defaultScopeTags...)
	listScopeTags   = append([]atom.Atom{atom.Ol, atom.Ul}, defaultScopeTags...)
	tableScopeTags  = []atom.Atom{atom.Html, atom.Table, atom.Template}
	headingTags     = []atom.Atom{atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6}
	pTags           = []atom.Atom{atom.P}
	tableTags       = []atom.Atom{atom.Table}
	foreignTags     = []atom.Atom{atom.Svg, atom.Math}
	itemTags        = []atom.Atom{atom.Li}
)
