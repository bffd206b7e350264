package builtin

import (
	"context"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// HashEmbedderDim is the default dimension of HashEmbedder vectors.
const HashEmbedderDim = 256

// HashEmbedderModel is the model id of HashEmbedder vectors. Vectors of
// different dimensions are not comparable, so a non-default dimension is
// appended to the id (e.g. "builtin-hash-ngram-v1-d512").
const HashEmbedderModel = modelcard.BuiltinHashEmbedder

// HashEmbedderMinSimilarity is the calibrated default minimum cosine for
// candidate retrieval with a HashEmbedder of HashEmbedderDim dimensions
// (ARCHITECTURE.md §5.2 min_similarity for this embedder).
//
// Rule: the 10th percentile of the cosines of related pairs, i.e. a 90 %
// recall target, rounded down to two decimals. Measured on the tuning parts
// of the NLI samples, testdata/nli/tune/{snli,mnli_matched,mnli_mismatched}.tsv
// (1530 rows; calibrating is tuning, so the report parts are left out):
// related pairs are each premise against its own hypothesis (all labels are
// on-topic); unrelated pairs are each premise against the hypotheses of the
// ten following rows of the same file (15295 pairs, same premises skipped).
//
// Related-pair cosine quantiles (all files): p05 0.004, p10 0.051,
// p25 0.195, median 0.354; unrelated: median 0.018, p90 0.123, p95 0.176,
// p99 0.280. At 0.05 the recall of related pairs is 0.900 (snli 0.862,
// mnli_matched 0.916, mnli_mismatched 0.923) and 29.0 % of unrelated pairs
// are kept (snli 36.7 %, mnli_matched 24.6 %, mnli_mismatched 25.7 %; SNLI
// captions share much vocabulary). The low value reflects that about a
// tenth of related pairs share no content word at all. It is a recall-stage
// filter: full-text search has already required shared terms, and top_k /
// max_pairs_per_claim bound the pairs sent to NLI. A stricter 80 % recall
// target would give 0.15 (81.0 % recall, 7.1 % of unrelated pairs kept).
// (The value was first set on all 3,000 rows of the samples, where the
// rule gave 0.05 too.) TestHashEmbedderCalibration recomputes these
// numbers.
const HashEmbedderMinSimilarity = 0.05

// Feature weights of the HashEmbedder. Content-word unigrams carry most of
// the signal, bigrams add some word order, character trigrams give partial
// credit to inflections and spelling variants.
const (
	heWordWeight     = 1.0
	heStopWeight     = 0.15 // unigram weight of a stop word
	heBigramWeight   = 0.6
	heBigramStopDamp = 0.3 // bigram weight factor per stop word in the bigram
	heTrigramWeight  = 0.5 // total (L2) trigram weight of one content word
	heMaxWordRunes   = 64  // longer "words" are cut for trigram purposes
	heSeedWord       = 0x9e3779b97f4a7c15
	heSeedBigram     = 0xbf58476d1ce4e5b9
	heSeedTrigram    = 0x94d049bb133111eb
	fnvOffset64      = 14695981039346656037
	fnvPrime64       = 1099511628211
)

// HashEmbedder is a deterministic bag-of-n-grams embedder using signed
// feature hashing. Each text is lowercased and split into words (runs of
// Unicode letters, digits and combining marks). Features are word unigrams,
// word bigrams and character trigrams of each word with boundary markers;
// stop words are damped (small unigram weight, no trigrams, damped bigrams).
// Every feature is hashed (64-bit FNV-1a, mixed, fixed seeds) to a bucket
// and a sign; bucket sums x get sublinear term frequency (|x| ≤ 1 kept,
// otherwise sign(x)·(1+ln|x|)) and the vector is L2-normalised.
//
// The embedding of an empty or whitespace-only text (or one without any
// letter or digit) is the zero vector; Cosine with it is 0.
//
// A HashEmbedder is safe for concurrent use.
type HashEmbedder struct {
	dim   int
	model string
}

var _ models.Embedder = (*HashEmbedder)(nil)

// NewHashEmbedder returns a HashEmbedder producing vectors of dim floats;
// dim <= 0 selects HashEmbedderDim.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = HashEmbedderDim
	}
	m := HashEmbedderModel
	if dim != HashEmbedderDim {
		m += "-d" + strconv.Itoa(dim)
	}
	return &HashEmbedder{dim: dim, model: m}
}

// Model returns the stable model id, HashEmbedderModel for the default
// dimension and HashEmbedderModel+"-d<dim>" otherwise.
func (e *HashEmbedder) Model() string { return e.model }

// Dim returns the vector length.
func (e *HashEmbedder) Dim() int { return e.dim }

// Embed returns one L2-normalised vector (or the zero vector for a text
// without words) per text. It fails only when ctx is done.
func (e *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*e.dim)
	st := e.newState()
	for i, t := range texts {
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		st.embed(t, v)
		out[i] = v
	}
	return out, nil
}

// newState returns the scratch state of one Embed call.
func (e *HashEmbedder) newState() *embedState {
	st := &embedState{acc: make([]float64, e.dim), dim: uint64(e.dim)}
	if e.dim&(e.dim-1) == 0 {
		st.mask = uint64(e.dim - 1)
		st.pow2 = true
	}
	return st
}

// embedState holds the per-call scratch buffers of Embed and the state of
// the text being embedded.
type embedState struct {
	acc   []float64
	runes [heMaxWordRunes + 2]rune
	dim   uint64
	mask  uint64
	pow2  bool

	prevHash  uint64 // the previous word's hash, when havePrev
	prevStop  bool   // the previous word is a stop word
	havePrev  bool
	nFeatures int // words seen
}

// mix64 is the splitmix64 finaliser; it spreads FNV hashes over all bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// add hashes feature h (already seeded) into a bucket with a sign.
func (s *embedState) add(h uint64, w float64) {
	h = mix64(h)
	var idx uint64
	if s.pow2 {
		idx = h & s.mask
	} else {
		idx = h % s.dim
	}
	if h>>63 == 1 {
		w = -w
	}
	s.acc[idx] += w
}

func (s *embedState) embed(text string, out []float32) {
	acc := s.acc
	for i := range acc {
		acc[i] = 0
	}
	var (
		wordHash uint64 = fnvOffset64
		nr       int    // runes of the current word (capped)
		inWord   bool
	)
	s.havePrev, s.nFeatures = false, 0
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				r = rune(c)
			case 'A' <= c && c <= 'Z':
				r = rune(c + 'a' - 'A')
			default:
				if inWord {
					s.flush(wordHash, nr)
					inWord = false
				}
				continue
			}
			if !inWord {
				inWord, wordHash, nr = true, fnvOffset64, 0
			}
			wordHash = (wordHash ^ uint64(r)) * fnvPrime64
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(text[i:])
			i += size
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || (inWord && unicode.IsMark(r))) {
				if inWord {
					s.flush(wordHash, nr)
					inWord = false
				}
				continue
			}
			r = unicode.ToLower(r)
			if !inWord {
				inWord, wordHash, nr = true, fnvOffset64, 0
			}
			var buf [utf8.UTFMax]byte
			n := utf8.EncodeRune(buf[:], r)
			for _, b := range buf[:n] {
				wordHash = (wordHash ^ uint64(b)) * fnvPrime64
			}
		}
		if nr < heMaxWordRunes {
			s.runes[nr+1] = r
			nr++
		}
	}
	if inWord {
		s.flush(wordHash, nr)
	}
	nFeatures := s.nFeatures
	if nFeatures == 0 {
		for i := range out {
			out[i] = 0
		}
		return
	}
	var norm float64
	for i, x := range acc {
		// Sublinear term frequency: |x| up to 1 is kept, above 1 it becomes
		// 1+ln|x| (the classic 1+log tf, continuous and smooth at 1). Only
		// a few buckets exceed 1, so few logarithms are computed.
		if a := math.Abs(x); a > 1 {
			y := 1 + math.Log(a)
			if x < 0 {
				y = -y
			}
			acc[i] = y
			x = y
		}
		norm += x * x
	}
	if norm == 0 { // every feature cancelled out
		for i := range out {
			out[i] = 0
		}
		return
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(x * inv)
	}
}

// flush adds the features of the word that just ended: its FNV-1a hash
// and its first nr runes (in s.runes[1:]), and the bigram with the word
// before it.
func (s *embedState) flush(wordHash uint64, nr int) {
	stop := false
	if nr <= maxStopRunes {
		stop = stopHashes.has(wordHash)
	}
	w := heWordWeight
	if stop {
		w = heStopWeight
	}
	s.add(wordHash^heSeedWord, w)
	s.nFeatures++
	if s.havePrev {
		bw := heBigramWeight
		if stop {
			bw *= heBigramStopDamp
		}
		if s.prevStop {
			bw *= heBigramStopDamp
		}
		s.add((s.prevHash*fnvPrime64)^(wordHash+heSeedBigram), bw)
	}
	if !stop {
		// Character trigrams over ^word$ (boundary markers 0x02/0x03).
		r := s.runes[:nr+2]
		r[0] = 0x02
		r[nr+1] = 0x03
		n := len(r) - 2
		tw := heTrigramWeight / math.Sqrt(float64(n))
		for j := 0; j < n; j++ {
			h := uint64(fnvOffset64)
			h = (h ^ uint64(r[j])) * fnvPrime64
			h = (h ^ uint64(r[j+1])) * fnvPrime64
			h = (h ^ uint64(r[j+2])) * fnvPrime64
			s.add(h^heSeedTrigram, tw)
		}
	}
	s.prevHash, s.prevStop, s.havePrev = wordHash, stop, true
}

// fnvString is the 64-bit FNV-1a hash of s, as computed inline by embed for
// an already lowercased word.
func fnvString(s string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// stopHashes holds the FNV-1a hashes of stopWordList; maxStopRunes is the
// length of its longest word (longer words skip the lookup).
var stopHashes, maxStopRunes = func() (hashSet, int) {
	hs := make([]uint64, len(stopWordList))
	n := 0
	for i, w := range stopWordList {
		hs[i] = fnvString(w)
		n = max(n, utf8.RuneCountInString(w))
	}
	return newHashSet(hs), n
}()

// hashSet is a set of 64-bit hashes: an open-addressing table with linear
// probing, a faster membership test than a map for a small fixed set.
type hashSet struct {
	slots   []uint64 // a power of two long; 0 marks a free slot
	hasZero bool     // 0 is in the set
	shift   uint8    // 64 − log2(len(slots))
}

// newHashSet returns the set of hs.
func newHashSet(hs []uint64) hashSet {
	size, bits := 8, uint8(3)
	for size < 2*len(hs) {
		size <<= 1
		bits++
	}
	s := hashSet{slots: make([]uint64, size), shift: 64 - bits}
	mask := uint64(size - 1)
	for _, h := range hs {
		if h == 0 {
			s.hasZero = true
			continue
		}
		i := s.slot(h)
		for s.slots[i] != 0 && s.slots[i] != h {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
	return s
}

func (s *hashSet) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> s.shift }

// has reports whether h is in the set.
func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		return s.hasZero
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(h); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}
