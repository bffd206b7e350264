package nlimodel

import (
	"hash/fnv"
	"strconv"
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

// featureSet collects hashed feature indices.
type featureSet struct {
	dim uint32
	idx []uint32
}

func (f *featureSet) add(parts ...string) {
	h := fnv.New32a()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	f.idx = append(f.idx, h.Sum32()%f.dim)
}

func bucket(x float64, edges ...float64) string {
	for i, e := range edges {
		if x < e {
			return strconv.Itoa(i)
		}
	}
	return strconv.Itoa(len(edges))
}

// Features returns the hashed feature indices of a pair in [0, dim).
func Features(premise, hypothesis string, dim uint32) []uint32 {
	p, h := tokens(premise), tokens(hypothesis)
	f := &featureSet{dim: dim, idx: make([]uint32, 0, 64+len(p)*len(h)/2)}
	f.add("bias")
	inP := make(map[string]bool, len(p))
	for _, w := range p {
		inP[w] = true
	}
	inH := make(map[string]bool, len(h))
	missing := 0
	for i, w := range h {
		inH[w] = true
		f.add("h", w)
		if i+1 < len(h) {
			f.add("hb", w, h[i+1])
		}
		if inP[w] {
			f.add("hin", w)
		} else {
			missing++
			f.add("hout", w)
		}
	}
	// premise × hypothesis word pairs for the words of the hypothesis the
	// premise lacks: what it says instead of them.
	for _, hw := range h {
		if inP[hw] {
			continue
		}
		for _, pw := range p {
			if !inH[pw] {
				f.add("x", pw, hw)
			}
		}
	}
	overlap := 0.0
	if len(h) > 0 {
		overlap = float64(len(h)-missing) / float64(len(h))
	}
	content, contentMissing := 0, 0
	for _, w := range h {
		if !stopwords[w] {
			content++
			if !inP[w] {
				contentMissing++
			}
		}
	}
	if content > 0 {
		f.add("ovc", bucket(float64(content-contentMissing)/float64(content), 0.2, 0.4, 0.6, 0.8, 0.95))
	}
	f.add("missc", bucket(float64(contentMissing), 1, 2, 3, 5))
	f.add("ov", bucket(overlap, 0.2, 0.4, 0.6, 0.8, 0.95))
	f.add("miss", bucket(float64(missing), 1, 2, 3, 5, 8))
	f.add("len", bucket(float64(len(h))-float64(len(p)), -20, -10, -5, -2, 0, 2, 5))
	negP, negH := 0, 0
	for _, w := range p {
		if negations[w] {
			negP++
		}
	}
	for _, w := range h {
		if negations[w] {
			negH++
			f.add("hneg", w)
		}
	}
	f.add("neg", strconv.FormatBool(negP > 0), strconv.FormatBool(negH > 0))
	numsP, numsH := map[string]bool{}, []string{}
	for _, w := range p {
		if unicode.IsDigit([]rune(w)[0]) {
			numsP[w] = true
		}
	}
	for _, w := range h {
		if unicode.IsDigit([]rune(w)[0]) {
			numsH = append(numsH, w)
		}
	}
	for _, n := range numsH {
		f.add("num", strconv.FormatBool(numsP[n]))
	}
	return f.idx
}

// stopwords are function words left out of the content overlap.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the and or of to in on at for with by from is are wa were be been being it its this that these those there his her their he she they them we you i as into onto over under up down out off than then so such some any all each one two") {
		stopwords[w] = true
	}
}
