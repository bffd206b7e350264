package nlimodel

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/evidencefleet/evidencefleet/internal/antonyms"
)

// Labels are the classes, in weight order.
var Labels = [3]string{"entailment", "neutral", "contradiction"}

// tokens lower-cases s, splits it into runs of letters and digits and
// stems each (see stem). A number keeps its decimal point and loses its
// thousands separators ("0.2", "1,500" → "1500"), and the number words up
// to twenty and the tens become digits ("three" → "3"), so that numbers
// meet whichever way they are written.
func tokens(s string) []string {
	ts, _ := tokenize(s, false)
	return ts
}

// tokenize is tokens with, when sentences is set, the index of each token
// that starts a sentence after the first (a '.', '!' or '?' outside a
// number ends one): a few entries, not one a token.
func tokenize(s string, sentences bool) ([]string, []int32) {
	s = strings.ToLower(s)
	ts := make([]string, 0, len(s)/6+1)
	var starts []int32
	ended := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !wordRune(r) {
			if r == '.' || r == '!' || r == '?' {
				ended = true
			}
			i += n
			continue
		}
		if ended && sentences && len(ts) > 0 {
			starts = append(starts, int32(len(ts)))
		}
		ended = false
		j, separators := i, false
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if wordRune(r) {
				j += n
				continue
			}
			// a '.' or ',' between two digits stays inside the number
			if (r == '.' || r == ',') && j > i && isDigit(s[j-1]) && j+1 < len(s) && isDigit(s[j+1]) {
				separators = separators || r == ','
				j++
				continue
			}
			break
		}
		t := s[i:j]
		if separators {
			t = strings.ReplaceAll(t, ",", "")
		}
		if len(t) >= 3 && len(t) <= 9 && numberInitials[t[0]] {
			if d, ok := numberWords[t]; ok {
				t = d
			}
		}
		ts = append(ts, stem(t))
		i = j
	}
	return ts, starts
}

// wordRune reports a letter or digit, an ASCII one from a table.
func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for r := range t {
		t[r] = unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r))
	}
	return t
}()

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// opposites maps the hash of a stemmed word to the hashes of its opposites
// (package antonyms): a hypothesis word whose opposite stands in the
// premise (and not in the hypothesis) is one cue feature, whatever the
// pair, so that a weight learned on the pairs the training data holds
// serves every pair of the list.
var opposites = map[uint64][]uint64{}

func init() {
	for _, list := range [][][2]string{antonyms.General, antonyms.Person, antonyms.Adjective} {
		for _, p := range list {
			for _, a := range inflections(p[0]) {
				for _, b := range inflections(p[1]) {
					opposites[a] = append(opposites[a], b)
					opposites[b] = append(opposites[b], a)
				}
			}
		}
	}
}

// inflections are the hashes of the distinct stems of w and its regular
// inflections (-s, -es, -d, -ed, -ing, and -ing for a final e): the
// stemmer leaves "increase" whole but cuts "increased" to "increas".
func inflections(w string) []uint64 {
	forms := []string{w, w + "s", w + "es", w + "d", w + "ed", w + "ing"}
	if strings.HasSuffix(w, "e") {
		forms = append(forms, w[:len(w)-1]+"ing")
	}
	var out []uint64
	for _, f := range forms {
		h := hashString(stem(f))
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// numberWords are the number words written as digits; numberInitials
// their first letters (most words need no lookup).
var (
	numberWords    = map[string]string{}
	numberInitials [256]bool
)

func init() {
	for i, w := range strings.Fields("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty") {
		numberWords[w] = strconv.Itoa(i)
	}
	for i, w := range strings.Fields("thirty forty fifty sixty seventy eighty ninety") {
		numberWords[w] = strconv.Itoa(30 + 10*i)
	}
	for w := range numberWords {
		numberInitials[w[0]] = true
	}
}

// stem strips the commonest English inflections, so that "dogs" meets
// "dog" and "playing" meets "plays": -ies → -y, -es after s, x, z, ch,
// sh, -s (not -ss, -us, -is), -ing and -ed on words long enough to keep a
// stem of three letters.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "es") && (strings.HasSuffix(w[:n-2], "s") || strings.HasSuffix(w[:n-2], "x") ||
		strings.HasSuffix(w[:n-2], "z") || strings.HasSuffix(w[:n-2], "ch") || strings.HasSuffix(w[:n-2], "sh")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		return w[:n-2]
	}
	return w
}

var negations = map[string]bool{
	"not": true, "no": true, "never": true, "nobody": true, "nothing": true, "none": true,
	"n": true, "t": true, "cannot": true, "without": true, "neither": true, "nor": true,
	"only": true, "incapable": true, "refused": true, "failed": true,
}

// Feature hashing. Every token is hashed once (FNV-1a, 64 bits); a feature
// is a kind tag with up to two hashes or small numbers, mixed into one
// 64-bit value and reduced to [0, dim). No feature builds a string.

// Feature kinds.
const (
	kBias uint64 = iota + 1
	kHyp
	kHypBigram
	kHypIn
	kHypOut
	kCross
	kOverlap
	kMissing
	kLength
	kOverlapContent
	kMissingContent
	kNegation
	kHypNeg
	kNumber
	kSubject
	kSubst
	kAntonym
)

// hashString is FNV-1a over s's bytes.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix combines a kind and two values into one well-spread 64-bit value
// (the splitmix64 finaliser after each step).
func mix(kind, a, b uint64) uint64 {
	x := kind*0x9e3779b97f4a7c15 ^ a
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x ^= b
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// featureSet collects hashed feature indices.
type featureSet struct {
	mask uint64 // dim − 1: dim is a power of two
	idx  []uint32
}

func (f *featureSet) add(kind, a, b uint64) {
	f.idx = append(f.idx, uint32(mix(kind, a, b)&f.mask))
}

// kAligned marks a kind conjoined with the alignment bucket.
const kAligned uint64 = 1 << 8

// addAligned adds (kind, a, b) alone and conjoined with the alignment
// bucket aligned (small numbers a, b).
func (f *featureSet) addAligned(kind, a, b, aligned uint64) {
	f.add(kind, a, b)
	f.add(kind+kAligned, a, b<<3|aligned)
}

// bucket returns the index of the first edge x is below (len(edges) when
// none).
func bucket(x float64, edges ...float64) uint64 {
	for i, e := range edges {
		if x < e {
			return uint64(i)
		}
	}
	return uint64(len(edges))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Text is the analysis of one side of a pair: its tokens, their hashes
// and what the features ask of them. Analysing a text once serves every
// pair it is in (a claim is the hypothesis of many pairs).
type Text struct {
	toks []string
	hs   []uint64
	at   posIndex        // each token hash's first position
	neg  bool            // holds a negation
	nums map[uint64]bool // hashes of its number tokens
	kind []tokenKind     // each token's kind, looked up once
	lead int             // its first token that is not a stopword, most often the subject (-1: none)
	// starts are the tokens that begin a sentence after the first
	// (tokenize).
	starts []int32
	// reports holds a reporting word (kindReporting); distancing the
	// sentences (numbered from 0) that hold a distancing one
	// (kindDistancing), in order.
	reports    bool
	distancing []int
}

// tokenKind says what the features ask of a token: a stopword, a
// negation, a number (bits).
type tokenKind uint8

const (
	kindStop tokenKind = 1 << iota
	kindNeg
	kindNumber
	kindReporting  // a word that reports what someone says (see attributed.go)
	kindDistancing // a reporting word that keeps the reporter's distance
)

// Analyse analyses s.
func Analyse(s string) *Text {
	t := &Text{}
	t.toks, t.starts = tokenize(s, true)
	t.hs = hashes(t.toks)
	t.at = newPosIndex(t.hs)
	t.kind = make([]tokenKind, len(t.hs))
	t.lead = -1
	sentence := 0
	for i, x := range t.hs {
		if sentence < len(t.starts) && int(t.starts[sentence]) == i {
			sentence++
		}
		w := t.toks[i]
		t.kind[i] = kinds[w]
		if t.kind[i]&kindStop == 0 && t.lead < 0 {
			t.lead = i
		}
		if t.kind[i]&kindNeg != 0 {
			t.neg = true
		}
		if t.kind[i]&kindReporting != 0 {
			t.reports = true
		}
		if t.kind[i]&kindDistancing != 0 && !slices.Contains(t.distancing, sentence) {
			t.distancing = append(t.distancing, sentence)
		}
		if isNumber(w) {
			t.kind[i] |= kindNumber
			if t.nums == nil {
				t.nums = map[uint64]bool{}
			}
			t.nums[x] = true
		}
	}
	return t
}

// Size estimates the bytes t holds.
func (t *Text) Size() int {
	n := int(unsafe.Sizeof(*t)) + cap(t.hs)*8 + cap(t.kind) + len(t.at.keys)*8 + len(t.at.pos)*4 + len(t.nums)*48 +
		cap(t.starts)*4 + cap(t.distancing)*8
	for _, s := range t.toks {
		n += int(unsafe.Sizeof(s)) + len(s) // an upper bound: tokens share the lowered text
	}
	return n
}

// has reports whether the token hash x occurs in t: a scan of a short
// text's hashes (a claim's, usually) is quicker than a map lookup.
func (t *Text) has(x uint64) bool {
	if len(t.hs) <= 16 {
		return slices.Contains(t.hs, x)
	}
	return t.at.get(x) >= 0
}

// Negated reports whether the text holds a negation (see negations).
func (t *Text) Negated() bool { return t.neg }

// Features returns the hashed feature indices of a pair in [0, dim); dim
// is a power of two.
func Features(premise, hypothesis string, dim uint32) []uint32 {
	return featuresInto(nil, Analyse(premise), Analyse(hypothesis), dim)
}

// featuresInto is Features on analysed texts, appending to buf[:0].
func featuresInto(buf []uint32, p, h *Text, dim uint32) []uint32 {
	f := &featureSet{mask: uint64(dim) - 1, idx: buf[:0]}
	f.add(kBias, 0, 0)
	missing, content, contentMissing := 0, 0, 0
	asserted, assertedMissing := 0, 0 // content words other than negations
	for i, x := range h.hs {
		f.add(kHyp, x, 0)
		if i+1 < len(h.hs) {
			f.add(kHypBigram, x, h.hs[i+1])
		}
		if p.has(x) {
			f.add(kHypIn, x, 0)
		} else {
			missing++
			f.add(kHypOut, x, 0)
		}
		if h.kind[i]&kindStop == 0 {
			content++
			if !p.has(x) {
				contentMissing++
			}
			if h.kind[i]&kindNeg == 0 {
				asserted++
				if !p.has(x) {
					assertedMissing++
				}
			}
		}
	}
	// premise × hypothesis word pairs for the words of the hypothesis the
	// premise lacks: what it says instead of them.
	// (the premise's tokens the hypothesis lacks, looked up once a pair)
	var only [64]uint64
	pOnly := only[:0]
	for _, px := range p.hs {
		if !h.has(px) {
			pOnly = append(pOnly, px)
		}
	}
	for _, hx := range h.hs {
		if p.has(hx) {
			continue
		}
		for _, px := range pOnly {
			f.add(kCross, px, hx)
		}
	}
	overlap := 0.0
	if len(h.hs) > 0 {
		overlap = float64(len(h.hs)-missing) / float64(len(h.hs))
	}
	f.add(kOverlap, bucket(overlap, 0.2, 0.4, 0.6, 0.8, 0.95), 0)
	f.add(kMissing, bucket(float64(missing), 1, 2, 3, 5, 8), 0)
	f.add(kLength, bucket(float64(len(h.hs))-float64(len(p.hs)), -20, -10, -5, -2, 0, 2, 5), 0)
	// aligned: how much of the hypothesis's content, negations aside, the
	// premise holds. The cues below are added alone and conjoined with it,
	// since a negation or another number means a contradiction when the
	// rest aligns and little when it does not.
	if content > 0 {
		f.add(kOverlapContent, bucket(float64(content-contentMissing)/float64(content), 0.2, 0.4, 0.6, 0.8, 0.95), 0)
	}
	aligned := uint64(0)
	if asserted > 0 {
		aligned = 1 + bucket(float64(asserted-assertedMissing)/float64(asserted), 0.5, 0.8, 0.95)
	}
	f.add(kMissingContent, bucket(float64(contentMissing), 1, 2, 3, 5), 0)
	f.addAligned(kLength, 1, bucket(float64(len(h.hs)), 5, 8, 12, 20), aligned)
	for i, x := range h.hs {
		if h.kind[i]&kindNeg != 0 {
			f.add(kHypNeg, x, 0)
		}
		f.add(kHyp+kAligned, x, aligned)
	}
	f.addAligned(kNegation, b2u(p.neg), b2u(h.neg), aligned)
	for i, x := range h.hs {
		if h.kind[i]&kindNumber != 0 {
			f.addAligned(kNumber, b2u(p.nums[x]), b2u(len(p.nums) > 0), aligned)
		}
	}
	if hs, ps := h.lead, p.lead; hs >= 0 && ps >= 0 {
		f.addAligned(kSubject, b2u(p.has(h.hs[hs])), b2u(h.has(p.hs[ps])), aligned)
	}
	substitutions(f, p, h)
	for _, hx := range h.hs {
		if p.has(hx) {
			continue
		}
		for _, ax := range opposites[hx] {
			if p.has(ax) && !h.has(ax) {
				f.add(kAntonym, 0, 0)
			}
		}
	}
	return f.idx
}

// substitutions adds, for each hypothesis word the premise lacks, the
// premise word it replaces: the one after the premise's occurrence of the
// hypothesis word before it (or the one before the occurrence of the word
// after it), when the premise lacks that word too. "The baby is asleep" /
// "The baby is awake" gives (asleep, awake); "A woman rides" / "A man
// rides" gives (woman, man). Unlike the cross features, which pair a
// missing word with every unmatched premise word, a substitution names the
// one word it stands for.
func substitutions(f *featureSet, p, h *Text) {
	for i, hx := range h.hs {
		if p.has(hx) {
			continue
		}
		j := -1
		if i > 0 {
			if k := p.at.get(h.hs[i-1]); k >= 0 && k+1 < len(p.hs) {
				j = k + 1
			}
		}
		if j < 0 && i+1 < len(h.hs) {
			if k := p.at.get(h.hs[i+1]); k > 0 {
				j = k - 1
			}
		}
		if j >= 0 && !h.has(p.hs[j]) {
			f.add(kSubst, p.hs[j], hx)
		}
	}
}

func hashes(ts []string) []uint64 {
	out := make([]uint64, len(ts))
	for i, t := range ts {
		out[i] = hashString(t)
	}
	return out
}

// isNumber reports a token that starts with a digit.
func isNumber(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// stopwords are function words left out of the content overlap.
var stopwords = map[string]bool{}

// kinds are the kinds of the stopwords and negations, for one lookup a
// token.
var kinds = map[string]tokenKind{}

func init() {
	for _, w := range strings.Fields("a an the and or of to in on at for with by from is are wa were be been being it its this that these those there his her their he she they them we you i as into onto over under up down out off than then so such some any all each one two") {
		stopwords[w] = true
		kinds[w] |= kindStop
	}
	for w := range negations {
		kinds[w] |= kindNeg
	}
}
