// Scoring: the hypothesis analysis and the comparison of a hypothesis with
// a premise index, which yields the evidence lexEvidence.judgement turns
// into a label.

package builtin

import "math"

// analyseHypothesis analyses a hypothesis text and derives what judging it
// needs whatever the premise.
func analyseHypothesis(text string) *hypothesisAnalysis {
	a := analyse(text)
	h := &hypothesisAnalysis{toks: a.toks, nums: a.nums, subject: subjectIndex(a.toks)}
	seen := make([]string, 0, len(a.toks))
	h.items = make([]hypItem, 0, len(a.toks))
	// The items' variants share one slice, large enough never to move.
	morphs := make([]hashedStr, 0, maxMorphVariants*len(a.toks))
	for i := range a.toks {
		t := &a.toks[i]
		h.univ[0] = h.univ[0] || t.flags&wUniversal != 0
		h.univ[1] = h.univ[1] || t.flags&wNegUniversal != 0
		if clauseStart(a.toks, i) {
			h.male = h.male || t.word == "he"
			h.female = h.female || t.word == "she"
		}
		switch t.kind {
		case kHedge:
			h.hedged = true
			continue
		case kNegation:
			h.negated = true
			continue
		case kBoundary, kNumber:
			continue
		case kStop:
			// Function words with an opposite (before/after, above/below) carry
			// no coverage weight but can still conflict.
			if t.info != nil && !t.neg {
				h.items = append(h.items, hypItem{i: i, neg: t.neg})
			}
			continue
		}
		if containsString(seen, t.stem) {
			continue
		}
		seen = append(seen, t.stem)
		w := 1.0
		if t.info != nil && t.info.light {
			w = lightWeight
		}
		h.weight += w
		start := len(morphs)
		morphs = appendMorphVariants(morphs, t.stem)
		it := hypItem{i: i, content: true, neg: t.neg, w: w, stem: newHashedStr(t.stem), morph: morphs[start:len(morphs):len(morphs)]}
		if b := agentBase(t.stem); b != "" {
			it.base = newHashedStr(b)
		}
		h.items = append(h.items, it)
	}
	for range h.nums {
		h.weight++
	}
	return h
}

// compareTexts extracts the evidence of a premise/hypothesis pair.
func compareTexts(p *premiseIndex, h *hypothesisAnalysis) lexEvidence {
	ev := lexEvidence{weight: h.weight}
	var covered, coveredNeg, conflicting float64
	var cueMaxWord float64 // strongest conflicting-word cue
	conflicts := 0
	negMismatch, hypNegAnchored := false, false
	negExplained := false // a negation is accounted for by an opposite
	for k := range h.items {
		it := &h.items[k]
		if !it.content {
			if s, _ := p.conflict(h.toks, it.i, false, nil); s > 0 {
				conflicts++
				cueMaxWord = math.Max(cueMaxWord, s)
			}
			continue
		}
		w := it.w
		if bits := p.coverBits(it); bits != 0 {
			if it.neg {
				hypNegAnchored = true
			}
			if (it.neg && bits&polNeg == 0) || (!it.neg && bits&polPos == 0) {
				coveredNeg += w
				negMismatch = true
			} else {
				covered += w
			}
			continue
		}
		s, support := p.conflict(h.toks, it.i, it.i == h.subject, it.morph)
		switch {
		case s > 0 && it.neg: // "not sleeping" against a premise that says running
			covered += w
			hypNegAnchored, negExplained = true, true
		case s > 0:
			conflicting += w
			conflicts++
			cueMaxWord = math.Max(cueMaxWord, s)
		case support && !it.neg: // "rejected" against "did not accept"
			covered += w
			negExplained = true
		}
	}
	numConflict := false
	for _, m := range h.nums {
		switch p.compareNumber(m) {
		case numEntailed:
			covered++
		case numContradicted:
			conflicting++
			numConflict = true
		}
	}
	if ev.weight > 0 {
		ev.coverage = (covered + coveredNeg) / ev.weight
		ev.explained = (covered + coveredNeg + conflicting) / ev.weight
	}
	ev.hedged = h.hedged || p.flags.hedged

	var cue float64
	switch {
	case negExplained:
		// Other shared words in that negation's scope ("did not accept
		// cash" / "rejected cash") are no polarity conflict.
	case negMismatch:
		cue += cueNegation
	case h.negated && !hypNegAnchored && !p.flags.negated:
		cue += cueNegLoose
	}
	if conflicts > 0 {
		cue += cueMaxWord + cueFurther*float64(conflicts-1)
	}
	if numConflict {
		cue += cueNumber
	}
	if (p.univ[0] && h.univ[1]) || (p.univ[1] && h.univ[0]) {
		cue += cueQuantifier
	}
	if h.male != h.female {
		g := 0 // index of the hypothesis's gender
		if h.female {
			g = 1
		}
		if !p.gender[g] && p.gender[1-g] {
			cue += cueExclusive
		}
	}
	ev.cue = math.Min(cue, cueMax)
	return ev
}
