// The analyses of the texts of one Judge call, and the premise cache that
// keeps premise indexes across calls.

package builtin

import (
	"strings"
	"sync"
	"unsafe"
)

// judgeMemo holds the analyses of the texts of one Judge call. The last
// text of each role is checked first (pairs usually come grouped by
// claim). Other premises come from the cache across calls, or from a map of
// the call for those too large for it; other hypotheses come from a map of
// the call. The maps are made on first use.
type judgeMemo struct {
	cache             *premiseCache
	lastPrem, lastHyp string
	prem              *premiseIndex
	hyp               *hypothesisAnalysis
	prems             map[string]*premiseIndex // premises the cache does not keep
	hyps              map[string]*hypothesisAnalysis
}

// premise returns the index of premise text s.
func (m *judgeMemo) premise(s string) *premiseIndex {
	if m.prem != nil && s == m.lastPrem {
		return m.prem
	}
	p, ok := m.prems[s]
	if !ok {
		var kept bool
		if p, kept = m.cache.premise(s); !kept {
			if m.prems == nil {
				m.prems = make(map[string]*premiseIndex)
			}
			m.prems[s] = p
		}
	}
	m.lastPrem, m.prem = s, p
	return p
}

// premiseCacheBytes bounds the estimated memory of a LexicalNLI's premise
// cache: about 2,000 premises of 300 bytes.
const premiseCacheBytes = 16 << 20

// premiseCache keeps premise indexes across Judge calls in two generations
// of at most premiseCacheBytes/2 estimated bytes each, keyed by a copy of
// the premise text (premiseIndex.text). A hit in the older generation moves
// the entry to the newer one; when the newer one is full, the older is
// dropped and the newer takes its place. So premises still in use stay
// while memory stays bounded. The zero value is an empty cache.
type premiseCache struct {
	mu        sync.Mutex
	cur, old  map[string]*premiseIndex
	curBytes  int
	indexings int // premises indexed (cache misses)
}

// premise returns the index of premise text s, from the cache or made, and
// whether the cache keeps it.
func (c *premiseCache) premise(s string) (*premiseIndex, bool) {
	c.mu.Lock()
	p, ok := c.cur[s]
	if !ok {
		if p, ok = c.old[s]; ok {
			c.addLocked(p)
		}
	}
	c.mu.Unlock()
	if ok {
		return p, true
	}
	p = indexPremise(analyse(s))
	c.mu.Lock()
	c.indexings++
	kept := true
	if _, dup := c.cur[s]; !dup { // another call may have indexed it meanwhile
		// A copy, so that the cache never holds on to a larger string s
		// may be part of.
		p.text = strings.Clone(s)
		kept = c.addLocked(p)
	}
	c.mu.Unlock()
	return p, kept
}

// addLocked adds p to the newer generation, first turning that into the
// older one when it is full, and reports whether it did: indexes larger
// than a generation are not kept.
func (c *premiseCache) addLocked(p *premiseIndex) bool {
	size := p.size()
	if size > premiseCacheBytes/2 {
		return false
	}
	if c.cur == nil || c.curBytes+size > premiseCacheBytes/2 {
		c.old, c.cur, c.curBytes = c.cur, make(map[string]*premiseIndex), 0
	}
	c.cur[p.text] = p
	c.curBytes += size
	return true
}

// size estimates the bytes a premise index holds.
func (p *premiseIndex) size() int {
	n := int(unsafe.Sizeof(*p)) + len(p.text) +
		cap(p.toks)*int(unsafe.Sizeof(lexToken{})) +
		cap(p.cover.slots)*4 + (cap(p.famFirst)+cap(p.famSecond))*int(unsafe.Sizeof(stemPol{})) +
		cap(p.cover.ents)*int(unsafe.Sizeof(stemEntry{})) +
		cap(p.grp)*int(unsafe.Sizeof(groupPol{})) +
		cap(p.mods)*int(unsafe.Sizeof(modifierOccurs{})) +
		cap(p.nums)*int(unsafe.Sizeof(numMention{}))
	for i := range p.toks {
		n += len(p.toks[i].word) // an upper bound of the shared word buffer
	}
	return n
}

// hypothesis returns the analysis of hypothesis text s.
func (m *judgeMemo) hypothesis(s string) *hypothesisAnalysis {
	if m.hyp != nil && s == m.lastHyp {
		return m.hyp
	}
	h, ok := m.hyps[s]
	if !ok {
		h = analyseHypothesis(s)
		if m.hyp != nil {
			if m.hyps == nil {
				m.hyps = map[string]*hypothesisAnalysis{m.lastHyp: m.hyp}
			}
			m.hyps[s] = h
		}
	}
	m.lastHyp, m.hyp = s, h
	return h
}
