// The premise index: what a premise offers to cover or contradict a
// hypothesis, built once per premise.

package builtin

// indexPremise builds the premise index of an analysed text. A first pass
// counts what the index will hold, so that each of its slices is allocated
// once.
func indexPremise(a analysedText) *premiseIndex {
	toks := a.toks
	entries := 0 // stems the cover set will hold, at most
	fams, groups, mods := 0, 0, 0
	var flags wordFlag // the flags of all tokens
	for i := range toks {
		t := &toks[i]
		flags |= t.flags
		switch t.kind {
		case kHedge, kNegation, kBoundary, kNumber:
			continue
		case kContent:
			entries++
			if len(t.stem) >= prefixMinLen {
				fams++
			}
			if agentBase(t.stem) != "" {
				entries++
			}
		}
		if t.info != nil {
			if t.kind == kContent {
				entries += len(t.info.implies)
			}
			for _, gs := range t.info.sides {
				if lexGroups[gs.g].modifier {
					mods++
				} else {
					groups++
				}
			}
		}
	}
	p := &premiseIndex{nums: a.nums, toks: toks}
	fam := p.cover.init(entries, fams) // cover entries of the famFirst stems
	if groups > 0 {
		p.grp = make([]groupPol, 0, groups)
	}
	if mods > 0 {
		p.mods = make([]modifierOccurs, 0, mods)
	}
	p.univ = [2]bool{flags&wUniversal != 0, flags&wNegUniversal != 0}
	p.gender = [2]bool{flags&wMale != 0, flags&wFemale != 0}
	for i := range toks {
		t := &toks[i]
		switch t.kind {
		case kHedge:
			p.flags.hedged = true
			continue
		case kNegation:
			p.flags.negated = true
			continue
		case kBoundary, kNumber:
			continue
		}
		pol := polPos
		if t.neg {
			pol = polNeg
		}
		info := t.info
		if t.kind == kContent {
			e := p.cover.add(t.stem, fnvString(t.stem), pol)
			if len(t.stem) >= prefixMinLen {
				x := &p.cover.ents[e]
				if !x.fam {
					x.fam = true
					fam = append(fam, uint32(e))
				}
				x.famPol |= pol
			}
			if b := agentBase(t.stem); b != "" {
				p.cover.add(b, fnvString(b), pol)
			}
			if info != nil {
				for k, s := range info.implies {
					p.cover.add(s, info.impliesHash[k], pol)
				}
			}
		}
		if info == nil {
			continue
		}
		for _, gs := range info.sides {
			switch {
			case lexGroups[gs.g].modifier:
				p.mods = append(p.mods, modifierOccurs{g: gs.g, mask: gs.mask, heads: headNouns(toks, i), neg: t.neg})
			case t.neg:
				p.group(gs.g).neg |= gs.mask
			default:
				p.group(gs.g).pos |= gs.mask
			}
		}
	}
	for g, f := range genderKey {
		p.gender[g] = p.gender[g] || p.cover.get(f)&polPos != 0
	}
	p.indexFamilies(fam)
	return p
}

// indexFamilies fills famFirst and famSecond from the cover entries fam.
func (p *premiseIndex) indexFamilies(fam []uint32) {
	if len(fam) == 0 {
		return
	}
	slips := 0
	for _, e := range fam {
		if len(p.cover.ents[e].key) >= slipMinLen {
			slips++
		}
	}
	refs := make([]stemPol, len(fam)+slips)
	p.famFirst, p.famSecond = refs[:len(fam):len(fam)], refs[len(fam):]
	// Counting sorts by the famKey of the first and of the second byte.
	var first, second [famKeys]int32
	for _, e := range fam {
		k := p.cover.ents[e].key
		first[famKey(k[0])]++
		if len(k) >= slipMinLen {
			second[famKey(k[1])]++
		}
	}
	for c, sum1, sum2 := 0, int32(0), int32(0); c < len(first); c++ {
		first[c], sum1 = sum1, sum1+first[c]
		second[c], sum2 = sum2, sum2+second[c]
		p.famFirstEnd[c], p.famSecondEnd[c] = sum1, sum2
	}
	for _, e := range fam {
		x := &p.cover.ents[e]
		k := &first[famKey(x.key[0])]
		p.famFirst[*k] = stemPol{x.key, x.famPol}
		*k++
		if len(x.key) >= slipMinLen {
			k = &second[famKey(x.key[1])]
			p.famSecond[*k] = stemPol{x.key, x.famPol}
			*k++
		}
	}
}

// famKey orders famFirst and famSecond: the letters a to z as 1 to 26,
// other bytes as 0.
const famKeys = 27

func famKey(c byte) int {
	if c >= 'a' && c <= 'z' {
		return int(c-'a') + 1
	}
	return 0
}

// famBucket returns the stems of fs (famFirst or famSecond, with end
// offsets ends per famKey) whose byte there has the famKey of c.
func famBucket(fs []stemPol, ends *[famKeys]int32, c byte) []stemPol {
	k := famKey(c)
	start := int32(0)
	if k > 0 {
		start = ends[k-1]
	}
	return fs[start:ends[k]]
}

// group returns the entry of group g, adding it when missing.
func (p *premiseIndex) group(g int32) *groupPol {
	for k := range p.grp {
		if p.grp[k].g == g {
			return &p.grp[k]
		}
	}
	p.grp = append(p.grp, groupPol{g: g})
	return &p.grp[len(p.grp)-1]
}

// groupSides returns the sides of group g present in the premise outside
// and inside negation.
func (p *premiseIndex) groupSides(g int32) (pos, neg uint64) {
	for _, x := range p.grp {
		if x.g == g {
			return x.pos, x.neg
		}
	}
	return 0, 0
}

// stemSet maps strings to polarity bits (0 when absent). It is an
// open-addressing hash table over fnvString hashes, which callers mostly
// have at hand, and is cheaper to build than a map for the few dozen stems
// of a premise.
type stemSet struct {
	slots []uint32 // entry index + 1 per slot, 0 when free; a power of two long
	ents  []stemEntry
	shift uint8 // 64 − log2(len(slots))
}

// stemEntry is one string of a stemSet.
type stemEntry struct {
	key    string
	h      uint64
	pol    uint8
	fam    bool  // a premise content stem of at least prefixMinLen bytes
	famPol uint8 // the polarity bits of those occurrences
}

// init prepares s for at most n strings. It returns an empty slice with
// room for extra entry indexes, allocated with the slots.
func (s *stemSet) init(n, extra int) []uint32 {
	size, bits := 8, uint8(3)
	for size < 2*n {
		size <<= 1
		bits++
	}
	buf := make([]uint32, size+extra)
	s.slots = buf[:size:size]
	s.ents = make([]stemEntry, 0, n)
	s.shift = 64 - bits
	return buf[size:size]
}

// slot is the first slot to probe for hash h.
func (s *stemSet) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> s.shift }

// add ORs pol into the bits of key (hash h) and returns its entry index.
func (s *stemSet) add(key string, h uint64, pol uint8) int {
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(h); ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			s.ents = append(s.ents, stemEntry{key: key, h: h, pol: pol})
			s.slots[i] = uint32(len(s.ents))
			return len(s.ents) - 1
		}
		if x := &s.ents[e-1]; x.h == h && x.key == key {
			x.pol |= pol
			return int(e - 1)
		}
	}
}

// get returns the bits of k.
func (s *stemSet) get(k hashedStr) uint8 {
	if len(s.slots) == 0 {
		return 0
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(k.h); ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			return 0
		}
		if x := &s.ents[e-1]; x.h == k.h && x.key == k.s {
			return x.pol
		}
	}
}
