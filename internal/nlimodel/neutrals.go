package nlimodel

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// GoldEvidence is the fourth column of the FEVER training pairs whose
// premise is the claim's annotated evidence.
const GoldEvidence = "gold_evidence"

// SameSubjectNeutrals builds neutral pairs from the FEVER pairs with gold
// evidence, the way the FEVER file's own NOT ENOUGH INFO pairs were built:
// a claim beside the evidence of another claim about the same subject (the
// leading run of capitalised words, see subjectOf). One eligible pair in
// every is kept (every ≤ 0 keeps none); pairs whose premises contain one
// another or whose claims are equal are not eligible.
//
// Why: in FEVER a claim with a negation is nearly always refuted and the
// constructed neutral claims rarely hold one, so a model learns "negated
// claim → refutes" whatever the evidence says (Schuster et al. 2019,
// "Towards Debiasing Fact Verification Models"). In the fleet one claim
// meets many topical sentences, and that shortcut refutes it with all of
// them. The same claims beside other evidence on their topic, labelled
// neutral, make the evidence carry the label.
func SameSubjectNeutrals(ex []TrainingExample, every int) []Example {
	if every <= 0 {
		return nil
	}
	groups := map[string][]int{}
	var subjects []string
	for i, e := range ex {
		if e.Meta != GoldEvidence || e.Label == 1 {
			continue
		}
		s := subjectOf(e.Hypothesis)
		if s == "" {
			continue
		}
		if groups[s] == nil {
			subjects = append(subjects, s)
		}
		groups[s] = append(groups[s], i)
	}
	var out []Example
	eligible := 0
	for _, s := range subjects {
		g := groups[s]
		if len(g) < 2 {
			continue
		}
		for j, i := range g {
			claim, donor := ex[i], ex[g[(j+1)%len(g)]]
			if claim.Hypothesis == donor.Hypothesis ||
				strings.Contains(claim.Premise, donor.Premise) || strings.Contains(donor.Premise, claim.Premise) {
				continue
			}
			eligible++
			if eligible%every == 0 {
				out = append(out, Example{Premise: donor.Premise, Hypothesis: claim.Hypothesis, Label: 1})
			}
		}
	}
	return out
}

// subjectOf is the leading run of capitalised words of a claim, allowing
// the connectors "of", "the" and "and" inside it ("" when the claim starts
// lower-case).
func subjectOf(claim string) string {
	var words []string
	for _, w := range strings.Fields(claim) {
		r, _ := utf8.DecodeRuneInString(w)
		connector := w == "of" || w == "the" || w == "and"
		if !unicode.IsUpper(r) && !(connector && len(words) > 0) {
			break
		}
		words = append(words, w)
	}
	for len(words) > 0 {
		last := words[len(words)-1]
		if last != "of" && last != "the" && last != "and" {
			break
		}
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// Interleave spreads extra evenly through base, keeping both orders: the
// training order stays a function of the data alone.
func Interleave(base, extra []Example) []Example {
	out := make([]Example, 0, len(base)+len(extra))
	if len(extra) == 0 {
		return append(out, base...)
	}
	step := len(base)/len(extra) + 1
	k := 0
	for i, e := range base {
		out = append(out, e)
		if i%step == step-1 && k < len(extra) {
			out = append(out, extra[k])
			k++
		}
	}
	return append(out, extra[k:]...)
}

// InPassages puts each FEVER pair's premise between the premises of two
// other pairs about the same subject (see subjectOf), label unchanged: the
// fleet judges a claim against a fragment of a page, in which the sentence
// that decides it stands among others on its topic, while the training
// premises are single sentences. Pairs without two other premises on their
// subject are left out; the order is the examples' own.
func InPassages(ex []TrainingExample) (sentences, passages []Example) {
	groups := map[string][]int{}
	for i, e := range ex {
		if !isFEVER(e) {
			continue
		}
		if s := subjectOf(e.Hypothesis); s != "" {
			groups[s] = append(groups[s], i)
		}
	}
	for i, e := range ex {
		if !isFEVER(e) {
			continue
		}
		var donors []string
		for _, j := range groups[subjectOf(e.Hypothesis)] {
			p := ex[j].Premise
			if j != i && p != e.Premise && !slices.Contains(donors, p) {
				donors = append(donors, p)
			}
			if len(donors) == 2 {
				break
			}
		}
		if len(donors) < 2 {
			continue
		}
		sentences = append(sentences, e.Example)
		passages = append(passages, Example{Premise: donors[0] + " " + e.Premise + " " + donors[1], Hypothesis: e.Hypothesis, Label: e.Label})
	}
	return sentences, passages
}

// sameSubjectEvidence is the fourth column of the FEVER pairs whose
// premise is another same-subject claim's evidence (NOT ENOUGH INFO).
const sameSubjectEvidence = "nei_same_subject_evidence"

func isFEVER(e TrainingExample) bool { return e.Meta == GoldEvidence || e.Meta == sameSubjectEvidence }
