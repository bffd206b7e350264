package sentence

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// Claim is a claim candidate: a sentence of the text and its span
// [QuoteStart, QuoteEnd) in rune offsets.
type Claim struct {
	Text                 string
	QuoteStart, QuoteEnd int
	Confidence           float64
}

// minClaimScore is the lowest score Claims accepts.
const minClaimScore = 0.3

// Claims is the built-in deterministic claim extractor — a BASELINE,
// not a model: it picks declarative, checkable sentences and returns at most
// max of them (none when max <= 0), in text order.
//
// A sentence qualifies when it ends with a full stop (after closing quotes or
// brackets; questions and exclamations are rejected), has 8–60 words (a Han
// or Hiragana character counts as half a word), contains a verb-like token
// (an auxiliary, a common verb form, or an -ed form followed by a function
// word, punctuation or the end; sentences without Latin letters, e.g.
// Japanese, skip this test), is not a heading, is not mostly symbols, and is
// not boilerplate (starting with "Retrieved", "Archived", "Accessed", "See
// also"…, or containing "cookie", "All rights reserved", "©", "Archived
// from", a URL, …). Trailing reference markers such as "[12]" or "[citation
// needed]" are left out of the span. The score (Confidence, in [0,1]) starts
// at 0.35 and rewards numbers, dates, comparatives, causal verbs,
// percentages/units, proper nouns and a 12–40 word length, and penalises
// pronoun openings, a lower-case start, first/second person, hedges and
// normative words ("should", "think"); sentences scoring below 0.3 are
// dropped. The best max sentences by score are kept (ties: earlier first);
// identical sentences count once. Text is the sentence itself and the quote
// span is its span in text.
func Claims(text string, max int) []Claim {
	if max <= 0 || text == "" {
		return nil
	}
	type cand struct {
		c   Claim
		idx int
	}
	var cands []cand
	seen := map[string]bool{}
	cur := NewRuneCursor(text)
	ForEach(text, func(bs, be int) {
		be = trimRefMarkers(text, bs, be)
		if bs >= be {
			return
		}
		s := text[bs:be]
		score, ok := scoreSentence(s)
		if !ok || seen[s] {
			return
		}
		seen[s] = true
		rs := cur.At(bs)
		re := cur.At(be)
		cands = append(cands, cand{c: Claim{Text: s, QuoteStart: rs, QuoteEnd: re, Confidence: score}, idx: len(cands)})
	})
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.c.Confidence > b.c.Confidence:
			return -1
		case a.c.Confidence < b.c.Confidence:
			return 1
		}
		return a.idx - b.idx
	})
	if len(cands) > max {
		cands = cands[:max]
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.idx - b.idx })
	out := make([]Claim, len(cands))
	for i, c := range cands {
		out[i] = c.c
	}
	return out
}

// Word lists (lower case) for the baseline scorer.
var (
	// auxVerbs: English auxiliaries plus a few unambiguous German, French,
	// Spanish, Italian, Portuguese and Dutch ones (words that are also
	// English nouns, like "war", "hat", "son", "era", are left out).
	auxVerbs = toSet(`is are was were be been being am has have had having do does did
		can could will would may might must shall should
		ist sind waren wird werden wurde wurden haben hatte hatten
		est sont était étaient ont avait sera seront
		es fueron han había será fue
		è sono erano hanno
		é são foi foram têm
		zijn heeft hebben wordt werd`)
	commonVerbs = verbForms(`accelerate account achieve affect allow appear arise become begin believe
		cause change claim consider contain contribute create cut decline decrease
		describe destroy develop die differ drive emit enable estimate exceed exist
		expand explain fall find follow form found generate grow help hold include
		increase indicate influence involve kill lead leave limit link live lose make
		mean measure melt need occur offer predict prevent produce propose protect
		provide raise reach receive record reduce reflect remain report represent
		require result reveal rise run say see seem serve show shrink spread state
		suggest support take threaten trigger use vary warm warn`)
	irregularVerbs = toSet(`became began caused did drove driven fell fallen found grew grown held
		kept led left lost made meant rose risen ran said saw seen shown shrank
		shrunk spread stood took taken thought told wrote written`)
	comparatives = toSet(`more less fewer greater higher lower larger smaller bigger faster
		slower warmer colder than most least compared relative twice double doubled
		tripled half exceed exceeds exceeded outpaced outperform outperformed
		increase increases increased decrease decreases decreased rise rises rose
		fall falls fell decline declines declined`)
	causal = toSet(`cause causes caused causing because due lead leads led leading
		result results resulted resulting contribute contributes contributed
		contributing drive drives drove driven driving reduce reduces reduced
		prevent prevents prevented trigger triggers triggered affect affects affected
		induce induces induced produce produces produced therefore consequently
		associated linked responsible effect effects impact impacts`)
	monthsEtc = toSet(`january february march april may june july august september october
		november december century centuries decade decades`)
	units = toSet(`percent per cent million billion trillion thousand km kg tonnes tons
		ppm gt °c celsius fahrenheit metres meters mm cm`)
	pronounStart = toSet(`it this that they these those he she such its their his her there`)
	person       = toSet(`i we our us you your my me ours yours`)
	hedges       = toSet(`may might perhaps possibly probably likely could seems`)
	// normativeWords mark recommendations and opinions rather than facts.
	normativeWords = toSet(`should ought must recommend recommended think believe feel`)
	functionWords  = toSet(`the a an by in to that as from with on at for over into of and or
		than this these those its their his her it them up down out off`)
	// boilerplatePrefix and boilerplate reject page chrome and reference
	// lists ("Retrieved 12 March 2020.", cookie notices, copyright lines).
	boilerplatePrefix = []string{
		"retrieved", "archived", "accessed", "see also", "main article",
		"further information", "for other uses", "this article is about",
	}
	boilerplate = []string{
		"cookie", "all rights reserved", "©", "privacy policy", "terms of use",
		"terms of service", "sign up", "sign in", "log in", "subscribe", "newsletter",
		"click here", "enable javascript", "javascript is disabled", "javascript is required",
		"archived from", "accessed on", "retrieved on", "retrieved from http", "share this",
		"read more", "http://", "https://", "www.", "this article", "this page",
		"edit this", "skip to",
	}
)

// verbForms expands base verbs with -s/-es, -d/-ed and -ing forms.
func verbForms(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
		stem := strings.TrimSuffix(w, "e")
		switch {
		case strings.HasSuffix(w, "y") && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
			m[w[:len(w)-1]+"ies"] = true
			m[w[:len(w)-1]+"ied"] = true
		case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "sh") || strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "x"):
			m[w+"es"] = true
			m[w+"ed"] = true
		default:
			m[w+"s"] = true
			m[stem+"ed"] = true
		}
		m[stem+"ing"] = true
	}
	return m
}

// scoreSentence applies the baseline filters and returns the score.
func scoreSentence(s string) (float64, bool) {
	if !statementShaped(s) {
		return 0, false
	}
	f := sentenceFeatures(s)
	if f.nWords < 8 || f.nWords > 60 {
		return 0, false
	}
	if f.latin && !f.verb {
		return 0, false
	}
	if f.total > 0 && f.nonText*10 > f.total*3 {
		return 0, false // mostly punctuation/symbols: tables, lists of values
	}
	if strings.ContainsRune(s, '%') || strings.ContainsRune(s, '°') {
		f.unit = true
	}
	firstRune, _ := utf8.DecodeRuneInString(s)
	score := f.score(unicode.IsLower(firstRune))
	if score < minClaimScore {
		return 0, false
	}
	return float64(int(score*1000+0.5)) / 1000, true
}

// statementShaped reports whether s ends like a statement (a full stop,
// possibly followed by closers; no ellipsis) and is not boilerplate.
func statementShaped(s string) bool {
	t := s
	var last rune
	for t != "" {
		c, size := utf8.DecodeLastRuneInString(t)
		if !IsClosing(c) {
			last = c
			break
		}
		t = t[:len(t)-size]
	}
	switch last {
	case '.', '。', '．':
	default:
		return false
	}
	if strings.HasSuffix(t, "...") || strings.HasSuffix(t, "…") {
		return false
	}
	lower := strings.ToLower(s)
	for _, b := range boilerplatePrefix {
		if strings.HasPrefix(lower, b) {
			return false
		}
	}
	for _, b := range boilerplate {
		if strings.Contains(lower, b) {
			return false
		}
	}
	return true
}

// features are what scoreSentence reads of a sentence's words.
type features struct {
	nWords, nProper                                    int
	verb, latin, digit, date, comp, cause, unit, hedge bool
	firstWord                                          string
	personal, normative                                bool
	nonText, total                                     int
}

// sentenceFeatures walks the words of s (UAX #29).
func sentenceFeatures(s string) features {
	var f features
	var edPending bool
	cjk := 0
	first := true // next word token is the first
	it := words.FromString(s)
	for it.Next() {
		tok := it.Value()
		c, _ := utf8.DecodeRuneInString(tok)
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			if !unicode.IsSpace(c) {
				f.nonText++
				f.total++
				if edPending {
					f.verb = true
					edPending = false
				}
			}
			continue
		}
		f.total++
		if utf8.RuneCountInString(tok) == 1 && unicode.In(c, unicode.Han, unicode.Hiragana) {
			cjk++ // UAX #29 makes each Han/Hiragana character a word
		} else {
			f.nWords++
		}
		lw := strings.ToLower(tok)
		if first {
			f.firstWord = lw
			first = false
		} else if unicode.IsUpper(c) {
			f.nProper++
		}
		if c < utf8.RuneSelf && unicode.IsLetter(c) {
			f.latin = true
		}
		if unicode.IsDigit(c) {
			f.digit = true
			if len(tok) == 4 && (strings.HasPrefix(tok, "1") || strings.HasPrefix(tok, "20")) {
				f.date = true
			}
		}
		if edPending && functionWords[lw] {
			f.verb = true
		}
		edPending = false
		if auxVerbs[lw] || commonVerbs[lw] || irregularVerbs[lw] {
			f.verb = true
		} else if len(lw) >= 5 && strings.HasSuffix(lw, "ed") {
			// "-ed" is a verb when a function word, punctuation or the end
			// follows ("deprecated the suite", "prices increased."), not
			// when it modifies a noun ("fluorinated gases").
			edPending = true
		}
		month := monthsEtc[lw] && (lw != "may" || f.nWords > 1 && unicode.IsUpper(c))
		f.date = f.date || month
		f.comp = f.comp || comparatives[lw]
		f.cause = f.cause || causal[lw]
		f.unit = f.unit || units[lw]
		f.hedge = f.hedge || hedges[lw] && !month
		f.personal = f.personal || person[lw]
		f.normative = f.normative || normativeWords[lw]
	}
	f.nWords += (cjk + 1) / 2 // about two CJK characters per word
	return f
}

// score weighs the features (before the floor minClaimScore); lowerStart
// is a sentence starting in lower case (a fragment of a longer one).
func (f features) score(lowerStart bool) float64 {
	score := 0.35
	add := func(cond bool, w float64) {
		if cond {
			score += w
		}
	}
	add(f.digit, 0.15)
	add(f.date, 0.10)
	add(f.comp, 0.10)
	add(f.cause, 0.15)
	add(f.unit, 0.05)
	add(f.nProper > 0, 0.05)
	add(f.nWords >= 12 && f.nWords <= 40, 0.10)
	add(pronounStart[f.firstWord], -0.10)
	add(f.personal, -0.15)
	add(f.hedge, -0.05)
	add(f.normative, -0.10)
	add(lowerStart, -0.20)
	return max(0, min(1, score))
}
