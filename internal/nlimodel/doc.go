// Package nlimodel is the learned NLI the built-in backend is to use: a
// multinomial logistic regression over hashed lexical features of a
// (premise, hypothesis) pair — the hypothesis's words and bigrams, which of
// them the premise has, premise×hypothesis word pairs for the words it
// lacks, and overlap, length, negation and number cues, over lower-cased,
// lightly stemmed tokens — in the spirit of the lexicalised classifier of
// the SNLI paper (Bowman et al. 2015). Training is deterministic: the same
// examples in the same order give the same weights, bit for bit. It does
// no I/O.
//
// Not wired into the fleet yet: the committed training data, weights,
// `make train-nli`, calibration and the switch of the built-in backend come
// next (the repository's issue on a learned, calibrated judge).
package nlimodel
