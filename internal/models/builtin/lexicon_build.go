// The lexicon tables (lexicon.go) turned into the lookup structures
// LexicalNLI uses at initialisation.

package builtin

// Lookup tables derived from the lexicon at initialisation.
var (
	wordTable          = buildWordTable()
	numAboveSet        = wordSet(numAbove)
	numAboveThanSet    = wordSet(numAboveThan)
	numBelowSet        = wordSet(numBelow)
	numBelowThanSet    = wordSet(numBelowThan)
	numApproxSet       = wordSet(numApprox)
	multiplierSet      = wordSet(numMultipliers)
	genderFeature      = [2]string{stem("male"), stem("female")}
	genderKey          = [2]hashedStr{newHashedStr(genderFeature[0]), newHashedStr(genderFeature[1])}
	lexGroups, lexInfo = buildLexicon()
)

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// lexGroupInfo is one group of mutually exclusive alternatives: an antonym
// pair, an everyday category, or two opposed sets. Each alternative is a
// side (a bit of a uint64 mask).
type lexGroupInfo struct {
	strength float64
	modifier bool     // conflicts only about the same head noun
	subject  bool     // conflicts only about the hypothesis's subject
	binary   bool     // two sides: not one implies the other
	compat   []uint64 // per side: the sides it does not conflict with (compatiblePairs, exclusiveApart)
}

// compatible returns the sides compatible with any side in mask.
func (g *lexGroupInfo) compatible(mask uint64) uint64 {
	var c uint64
	for s := range g.compat {
		if mask&(1<<s) != 0 {
			c |= g.compat[s]
		}
	}
	return c
}

// groupSide is a word's membership in a group.
type groupSide struct {
	g    int32
	mask uint64
}

// lexWord is what the lexicon knows about a stem.
type lexWord struct {
	implies []string // stems it implies, transitively, without itself
	// impliesHash holds the fnvString hashes of implies.
	impliesHash []uint64
	sides       []groupSide // its groups (with those of what it implies, except modifier groups)
	light       bool        // a frequent, general word
}

// buildLexicon stems the lexicon and derives the group and word tables.
func buildLexicon() ([]lexGroupInfo, map[string]*lexWord) {
	direct := directImplications()
	groups, members := buildGroups()
	return groups, buildWords(direct, groups, members)
}

// directImplications maps each stem to the stems it implies directly: the
// other members of its synonym groups and its hypernyms.
func directImplications() map[string][]string {
	direct := make(map[string][]string) // stem → stems it implies directly
	link := func(a, b string) {
		a, b = stem(a), stem(b)
		if a != b {
			direct[a] = appendUnique(direct[a], b)
		}
	}
	for _, g := range synonymGroups {
		for _, a := range g {
			for _, b := range g {
				link(a, b)
			}
		}
	}
	for spec, gens := range hypernyms {
		for _, g := range gens {
			link(spec, g)
		}
	}
	return direct
}

// groupBuilder collects the groups of alternatives and the memberships of
// stems in them.
type groupBuilder struct {
	groups  []lexGroupInfo
	members map[string][]groupSide // stem → its own memberships
}

// add adds a group of alternatives; the pairs apart (of members that are
// sides of their own) do not conflict, as compatible ones.
func (gb *groupBuilder) add(info lexGroupInfo, sides [][]string, apart [][2]string) {
	if len(sides) > 64 {
		panic("builtin: lexicon group with more than 64 alternatives")
	}
	gi := int32(len(gb.groups))
	side := make(map[string]int)
	clash := make(map[string]bool)
	for s, ws := range sides {
		for _, w := range ws {
			st := stem(w)
			if prev, ok := side[st]; ok && prev != s {
				clash[st] = true
			}
			side[st] = s
		}
	}
	info.compat = make([]uint64, len(sides))
	for _, ps := range [2][][2]string{compatiblePairs, apart} {
		for _, p := range ps {
			a, aok := side[stem(p[0])]
			b, bok := side[stem(p[1])]
			if aok && bok && a != b {
				info.compat[a] |= 1 << b
				info.compat[b] |= 1 << a
			}
		}
	}
	gb.groups = append(gb.groups, info)
	for st, s := range side {
		if !clash[st] {
			gb.members[st] = append(gb.members[st], groupSide{g: gi, mask: 1 << s})
		}
	}
}

// buildGroups turns the antonym pairs, exclusive groups and oppositions into
// groups, and returns them with each stem's own memberships.
func buildGroups() ([]lexGroupInfo, map[string][]groupSide) {
	gb := &groupBuilder{members: make(map[string][]groupSide)}
	for _, p := range antonymPairs {
		gb.add(lexGroupInfo{strength: cueAntonym, binary: true}, [][]string{{p[0]}, {p[1]}}, nil)
	}
	for _, p := range personAntonymPairs {
		gb.add(lexGroupInfo{strength: cueAntonym, binary: true, subject: true}, [][]string{{p[0]}, {p[1]}}, nil)
	}
	for _, p := range adjectiveAntonymPairs {
		gb.add(lexGroupInfo{strength: cueAntonym, binary: true, modifier: true}, [][]string{{p[0]}, {p[1]}}, nil)
	}
	for _, eg := range exclusiveGroups {
		sides := make([][]string, len(eg.words))
		for i, w := range eg.words {
			sides[i] = []string{w}
		}
		gb.add(lexGroupInfo{strength: cueExclusive, modifier: eg.modifier}, sides, exclusiveApart)
	}
	for _, o := range exclusiveOppositions {
		gb.add(lexGroupInfo{strength: cueExclusive}, [][]string{o[0], o[1]}, nil)
	}
	return gb.groups, gb.members
}

// buildWords makes the lexicon entry of every stem that implies something,
// belongs to a group or is light: the transitive closure of its
// implications and its groups (with those of what it implies, except
// modifier groups).
func buildWords(direct map[string][]string, groups []lexGroupInfo, members map[string][]groupSide) map[string]*lexWord {
	words := make(map[string]*lexWord)
	get := func(st string) *lexWord {
		w := words[st]
		if w == nil {
			w = &lexWord{}
			words[st] = w
		}
		return w
	}
	for st := range direct {
		get(st)
	}
	for st := range members {
		get(st)
	}
	for _, w := range lightWords {
		get(stem(w)).light = true
	}
	for st, w := range words {
		// transitive closure of implications, in a deterministic order
		seen := map[string]bool{st: true}
		queue := append([]string(nil), direct[st]...)
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			if seen[x] {
				continue
			}
			seen[x] = true
			w.implies = append(w.implies, x)
			w.impliesHash = append(w.impliesHash, fnvString(x))
			queue = append(queue, direct[x]...)
		}
		byGroup := make(map[int32]int)
		add := func(gs groupSide) {
			if k, ok := byGroup[gs.g]; ok {
				w.sides[k].mask |= gs.mask
				return
			}
			byGroup[gs.g] = len(w.sides)
			w.sides = append(w.sides, gs)
		}
		for _, gs := range members[st] {
			add(gs)
		}
		for _, x := range w.implies {
			for _, gs := range members[x] {
				if !groups[gs.g].modifier {
					add(gs)
				}
			}
		}
	}
	return words
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
