package nlimodel

import (
	"strings"
	"unicode"
)

// Labels are the classes, in weight order.
var Labels = [3]string{"entailment", "neutral", "contradiction"}

// tokens lower-cases s, splits it into runs of letters and digits and
// stems each (see stem).
func tokens(s string) []string {
	ts := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, t := range ts {
		ts[i] = stem(t)
	}
	return ts
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
	set  map[uint64]bool // token hashes present
	neg  bool            // holds a negation
	nums map[uint64]bool // hashes of its number tokens
}

// Analyse analyses s.
func Analyse(s string) *Text {
	t := &Text{toks: tokens(s)}
	t.hs = hashes(t.toks)
	t.set = make(map[uint64]bool, len(t.hs))
	for i, x := range t.hs {
		t.set[x] = true
		t.neg = t.neg || negations[t.toks[i]]
		if isNumber(t.toks[i]) {
			if t.nums == nil {
				t.nums = map[uint64]bool{}
			}
			t.nums[x] = true
		}
	}
	return t
}

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
	for i, x := range h.hs {
		f.add(kHyp, x, 0)
		if i+1 < len(h.hs) {
			f.add(kHypBigram, x, h.hs[i+1])
		}
		if p.set[x] {
			f.add(kHypIn, x, 0)
		} else {
			missing++
			f.add(kHypOut, x, 0)
		}
		if !stopwords[h.toks[i]] {
			content++
			if !p.set[x] {
				contentMissing++
			}
		}
	}
	// premise × hypothesis word pairs for the words of the hypothesis the
	// premise lacks: what it says instead of them.
	// (the premise's tokens the hypothesis lacks, looked up once a pair)
	pOnly := make([]bool, len(p.hs))
	for i, px := range p.hs {
		pOnly[i] = !h.set[px]
	}
	for _, hx := range h.hs {
		if p.set[hx] {
			continue
		}
		for i, px := range p.hs {
			if pOnly[i] {
				f.add(kCross, px, hx)
			}
		}
	}
	overlap := 0.0
	if len(h.hs) > 0 {
		overlap = float64(len(h.hs)-missing) / float64(len(h.hs))
	}
	f.add(kOverlap, bucket(overlap, 0.2, 0.4, 0.6, 0.8, 0.95), 0)
	f.add(kMissing, bucket(float64(missing), 1, 2, 3, 5, 8), 0)
	f.add(kLength, bucket(float64(len(h.hs))-float64(len(p.hs)), -20, -10, -5, -2, 0, 2, 5), 0)
	if content > 0 {
		f.add(kOverlapContent, bucket(float64(content-contentMissing)/float64(content), 0.2, 0.4, 0.6, 0.8, 0.95), 0)
	}
	f.add(kMissingContent, bucket(float64(contentMissing), 1, 2, 3, 5), 0)
	for i, w := range h.toks {
		if negations[w] {
			f.add(kHypNeg, h.hs[i], 0)
		}
	}
	f.add(kNegation, b2u(p.neg), b2u(h.neg))
	for i, w := range h.toks {
		if isNumber(w) {
			f.add(kNumber, b2u(p.nums[h.hs[i]]), 0)
		}
	}
	return f.idx
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

func init() {
	for _, w := range strings.Fields("a an the and or of to in on at for with by from is are wa were be been being it its this that these those there his her their he she they them we you i as into onto over under up down out off than then so such some any all each one two") {
		stopwords[w] = true
	}
}
