// The analyses of the texts of one Judge call, and the premise cache that
// keeps premise indexes across calls.

package builtin

import (
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
		if m.cache != nil {
			p, kept = m.cache.get(s)
		} else {
			p = indexPremise(analyse(s)) // a LexicalNLI made without NewLexicalNLI keeps none
		}
		if !kept {
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

// premiseCache keeps premise indexes across Judge calls (textCache).
type premiseCache = textCache[*premiseIndex]

func newPremiseCache() *premiseCache {
	return newTextCache(premiseCacheBytes, func(s string) *premiseIndex { return indexPremise(analyse(s)) }, (*premiseIndex).size)
}

// size estimates the bytes a premise index holds.
func (p *premiseIndex) size() int {
	n := int(unsafe.Sizeof(*p)) +
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
