package extract

import "golang.org/x/net/html/atom"

// The models checkBuild keeps of the tree builder's list of active
// formatting elements and of the special elements it has open (see
// nodebudget.go).

// maxOpen is the depth of open elements at which html.Parse gives up: no
// reconstruction re-opens more than this.
const maxOpen = 512

// The adoption agency runs at most 8 rounds for an end tag, each cloning
// the formatting element and at most 3 elements above it, one round per
// special element above the formatting element.
const (
	adoptionRounds   = 8
	adoptionPerRound = 4
)

// afeEntry is one active formatting element.
type afeEntry struct {
	atom  atom.Atom
	sig   uint64 // tag and attributes: entries alike count against Noah's Ark
	pos   int64  // position when pushed: it is this high on the stack or higher
	attrs int64
	live  bool
	alike *entryList // the entries alike, of which at most 3 live
}

// afeModel is an upper bound of the parser's list of active formatting
// elements, without its markers.
type afeModel struct {
	entries  []*afeEntry              // push order; dead entries stay until trimmed
	byAtom   map[atom.Atom]*entryList // the entries of each tag, push order
	bySig    map[uint64]*entryList    // the entries alike, push order
	count    int64                    // live entries
	attrs    int64                    // their attributes
	maxAttrs int64                    // the most attributes any entry had
	dirty    bool                     // the entries may be off the stack of open elements
}

// entryList is a queue of entries; dead ones are skipped lazily.
type entryList struct {
	list []*afeEntry
	head int
	live int
}

func (l *entryList) oldest() *afeEntry {
	for l.head < len(l.list) && !l.list[l.head].live {
		l.head++
	}
	if l.head < len(l.list) {
		return l.list[l.head]
	}
	return nil
}

func (l *entryList) latest() *afeEntry {
	for len(l.list) > l.head && !l.list[len(l.list)-1].live {
		l.list = l.list[:len(l.list)-1]
	}
	if len(l.list) > l.head {
		return l.list[len(l.list)-1]
	}
	return nil
}

// listOf returns the entry list of key in lists, made if missing.
func listOf[K comparable](lists map[K]*entryList, key K) *entryList {
	l := lists[key]
	if l == nil {
		l = &entryList{}
		lists[key] = l
	}
	return l
}

// push adds a formatting element at position pos, first removing the
// oldest of three alike.
func (m *afeModel) push(a atom.Atom, sig uint64, attrs, pos int64) {
	if m.byAtom == nil {
		m.byAtom, m.bySig = map[atom.Atom]*entryList{}, map[uint64]*entryList{}
	}
	sig ^= uint64(a) * 0x9E3779B97F4A7C15
	alike, tag := listOf(m.bySig, sig), listOf(m.byAtom, a)
	if alike.live >= 3 {
		m.kill(alike.oldest())
	}
	e := &afeEntry{atom: a, sig: sig, pos: pos, attrs: attrs, live: true, alike: alike}
	m.entries = append(m.entries, e)
	alike.list = append(alike.list, e)
	alike.live++
	tag.list = append(tag.list, e)
	m.count++
	m.attrs += attrs
	m.maxAttrs = max(m.maxAttrs, attrs)
}

func (m *afeModel) kill(e *afeEntry) {
	if e != nil && e.live {
		e.live = false
		e.alike.live--
		m.count--
		m.attrs -= e.attrs
	}
}

// latest and oldest return the live entries of tag a, or nil.
func (m *afeModel) latest(a atom.Atom) *afeEntry {
	if l := m.byAtom[a]; l != nil {
		return l.latest()
	}
	return nil
}

func (m *afeModel) oldest(a atom.Atom) *afeEntry {
	if l := m.byAtom[a]; l != nil {
		return l.oldest()
	}
	return nil
}

// clearAfter removes the entries pushed after pos (a table cell closing
// clears the list up to the cell's marker).
func (m *afeModel) clearAfter(pos int64) {
	for len(m.entries) > 0 && m.entries[len(m.entries)-1].pos > pos {
		m.kill(m.entries[len(m.entries)-1])
		m.entries = m.entries[:len(m.entries)-1]
	}
}

// reconstruct counts the elements a reconstruction may re-open; sure says
// that the parser reconstructs here, after which all entries are open.
func (s *buildScan) reconstruct(sure bool) {
	m := &s.afe
	if m.dirty && m.count > 0 {
		k := min(m.count, maxOpen)
		s.est.reopened += k
		s.est.attrs += min(m.attrs, k*m.maxAttrs)
	}
	if sure {
		m.dirty = false
	}
}

// adopt counts what the adoption agency may clone for an end tag of a: a
// round per special element that may be open above an entry of a.
func (s *buildScan) adopt(a atom.Atom) {
	o := s.afe.oldest(a)
	if o == nil {
		return
	}
	if n := int64(min(s.blocks.above(o.pos), adoptionRounds)); n > 0 {
		s.est.adopted += n * adoptionPerRound
		s.est.attrs += n * adoptionPerRound * s.afe.maxAttrs
	}
}

// formattingStart follows a start tag of a formatting element.
func (s *buildScan) formattingStart(a atom.Atom, nattr int64, sig uint64, sure bool) {
	switch a {
	case atom.A:
		// An <a> still active is closed first, and always removed.
		if e := s.afe.latest(atom.A); e != nil {
			s.adopt(atom.A)
			s.afe.kill(e)
			s.afe.dirty = true
		}
		s.reconstruct(sure)
	case atom.Nobr:
		s.reconstruct(sure)
		if s.afe.latest(atom.Nobr) != nil {
			s.formattingEnd(atom.Nobr)
			s.reconstruct(sure)
		}
	default:
		s.reconstruct(sure)
	}
	s.afe.push(a, sig, nattr, s.nextPos())
}

// formattingEnd follows an end tag of a formatting element: the adoption
// agency, which removes the entry when no special element is open above it
// (else the entry stays, counted as possibly active).
func (s *buildScan) formattingEnd(a atom.Atom) {
	s.afe.dirty = true
	e := s.afe.latest(a)
	if e == nil {
		return // "any other end tag"
	}
	s.adopt(a)
	if s.blocks.above(e.pos) == 0 {
		s.afe.kill(e)
	}
}
