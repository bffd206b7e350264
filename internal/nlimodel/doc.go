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
// The built-in NLI backend (internal/models/builtin.LearnedNLI) judges with
// the committed weights (weights.bin, written by `make train-nli`, whose
// confidence is temperature-calibrated on held-out training pairs).
package nlimodel
