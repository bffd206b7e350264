package builtin

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/stopwords"
	"github.com/evidencefleet/evidencefleet/internal/wordvec"
)

// EmbedderModel is the model id of HybridEmbedder vectors of the default
// dimension, EmbedderDim; another dimension is appended to it
// (e.g. "builtin-hash-glove-v1-d612").
const EmbedderModel = modelcard.BuiltinEmbedder

// EmbedderDim is the default dimension of HybridEmbedder vectors:
// HashEmbedderDim hashed n-gram buckets and the word vectors' 100.
const EmbedderDim = HashEmbedderDim + wordvec.VectorDim

// sifWeight is a of the smooth inverse frequency weight a/(a+p(w)) of a
// word of probability p(w) (Arora, Liang and Ma, ICLR 2017, who found
// values from 1e-4 to 1e-3 best and suggest 1e-3).
const sifWeight = 1e-3

// sifRankOffset smooths the Zipf estimate of a word's probability from its
// frequency rank r: p(w) ∝ 1/(r+sifRankOffset).
const sifRankOffset = 10

// HybridEmbedder is the built-in embedder. Its vector is two parts side by
// side, each of unit length and weighted alike: a HashEmbedder's hashed
// word and character n-grams (dim − 100 floats: which words, names and
// numbers two texts share), and the weighted mean of the GloVe vectors of
// the text's words (100 floats, internal/wordvec: whether their words are
// alike in meaning — "glacier" and "ice", "warming" and "temperatures").
// The cosine of two texts is then the mean of the two parts' cosines, or
// the one part's when a text has no word with a vector.
//
// A word's weight in the mean is its smooth inverse frequency a/(a+p(w))
// (sifWeight), with p(w) estimated from its frequency rank in GloVe's
// vocabulary; stop words, words without a vector and words of other than
// lower-case ASCII letters (after lower-casing) are left out.
//
// A HybridEmbedder is safe for concurrent use.
type HybridEmbedder struct {
	hash   *HashEmbedder
	vecs   *wordvec.Vectors
	weight []float32 // SIF weight by word vector row; 0 for a stop word
	common []float32 // the direction every mean shares, removed from it
	dim    int
	model  string
}

var _ models.Embedder = (*HybridEmbedder)(nil)

// NewHybridEmbedder returns a HybridEmbedder of dim floats (0 selects
// EmbedderDim); dim must leave the hashed part at least 16.
func NewHybridEmbedder(dim int) (*HybridEmbedder, error) {
	if dim == 0 {
		dim = EmbedderDim
	}
	if dim < wordvec.VectorDim+16 {
		return nil, fmt.Errorf("builtin embedder: dimension %d, want at least %d (%d of it word vectors)", dim, wordvec.VectorDim+16, wordvec.VectorDim)
	}
	t, err := wordTables()
	if err != nil {
		return nil, fmt.Errorf("builtin embedder: %w", err)
	}
	m := EmbedderModel
	if dim != EmbedderDim {
		m += "-d" + strconv.Itoa(dim)
	}
	return &HybridEmbedder{hash: NewHashEmbedder(dim - wordvec.VectorDim), vecs: t.vecs,
		weight: t.weight, common: t.common, dim: dim, model: m}, nil
}

// wordTables are the word vectors and what the embedder derives from
// them, made once per process and shared by every HybridEmbedder.
var wordTables = sync.OnceValues(func() (tables, error) {
	vecs, err := wordvec.Default()
	if err != nil {
		return tables{}, err
	}
	weight := sifWeights(vecs.Len())
	for r := range weight {
		if stopwords.Is(vecs.Word(r)) {
			weight[r] = 0 // left out of the mean
		}
	}
	return tables{vecs: vecs, weight: weight, common: commonDirection(vecs)}, nil
})

type tables struct {
	vecs   *wordvec.Vectors
	weight []float32
	common []float32
}

// sifWeights returns the smooth inverse frequency weight of each of n
// words in frequency order.
func sifWeights(n int) []float32 {
	var h float64 // the Zipf normaliser
	for r := range n {
		h += 1 / float64(r+sifRankOffset)
	}
	out := make([]float32, n)
	for r := range out {
		p := 1 / (float64(r+sifRankOffset) * h)
		out[r] = float32(sifWeight / (sifWeight + p))
	}
	return out
}

// commonDirection is the unit vector of the Zipf-weighted mean of all word
// vectors: the direction the means of all texts share.
func commonDirection(vecs *wordvec.Vectors) []float32 {
	c := make([]float32, vecs.Dim)
	for r := range vecs.Len() {
		vecs.AddRow(c, r, float32(1/float64(r+sifRankOffset)))
	}
	n := float32(norm(c))
	for i := range c {
		c[i] /= n
	}
	return c
}

// Model returns the stable model id.
func (e *HybridEmbedder) Model() string { return e.model }

// Dim returns the vector length.
func (e *HybridEmbedder) Dim() int { return e.dim }

// Embed returns one unit vector (or the zero vector for a text without
// words) per text. It fails only when ctx is done.
func (e *HybridEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hd := e.hash.Dim()
	st := e.hash.newState() // the hashed part is written in place
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*e.dim)
	for i, t := range texts {
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		st.embed(t, v[:hd])
		e.meanVector(t, v[hd:])
		normalizeParts(v[:hd], v[hd:])
		out[i] = v
	}
	return out, nil
}

// meanVector writes the SIF-weighted sum of the word vectors of t's words
// to dst, less its component along the direction all such sums share
// (the first principal component Arora et al. remove; here the
// Zipf-weighted mean of the vocabulary, so it depends on no corpus).
func (e *HybridEmbedder) meanVector(t string, dst []float32) {
	var buf [maxVocabularyWord]byte
	for i := 0; i < len(t); {
		for i < len(t) && !isWordByte(t[i]) {
			i++
		}
		start := i
		for i < len(t) && isWordByte(t[i]) {
			i++
		}
		if w, ok := lowerLetters(buf[:0], t[start:i]); ok {
			if r := e.vecs.RankBytes(w); r >= 0 && e.weight[r] > 0 {
				e.vecs.AddRow(dst, r, e.weight[r])
			}
		}
	}
	e.removeCommon(dst)
}

// maxVocabularyWord bounds the words looked up (no vocabulary word is
// longer).
const maxVocabularyWord = 32

// lowerLetters appends w lower-cased to buf when w is 1 to
// maxVocabularyWord ASCII letters (a word with a digit or another
// character is no vocabulary word).
func lowerLetters(buf []byte, w string) ([]byte, bool) {
	if w == "" || len(w) > maxVocabularyWord {
		return nil, false
	}
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case 'a' <= c && c <= 'z':
			buf = append(buf, c)
		case 'A' <= c && c <= 'Z':
			buf = append(buf, c+'a'-'A')
		default:
			return nil, false
		}
	}
	return buf, true
}

// removeCommon removes from v its component along the common direction.
func (e *HybridEmbedder) removeCommon(v []float32) {
	var d float32
	for k, x := range v {
		d += x * e.common[k]
	}
	for k, c := range e.common {
		v[k] -= d * c
	}
}

// isWordByte reports a byte of a word: an ASCII letter or digit, or any
// byte of a multi-byte character.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// normalizeParts scales each of the two parts to length √½ (a zero part
// stays zero), then the whole to unit length.
func normalizeParts(a, b []float32) {
	na, nb := norm(a), norm(b)
	var sa, sb float64
	switch {
	case na > 0 && nb > 0:
		sa, sb = math.Sqrt(0.5)/na, math.Sqrt(0.5)/nb
	case na > 0:
		sa = 1 / na
	case nb > 0:
		sb = 1 / nb
	}
	for i := range a {
		a[i] = float32(float64(a[i]) * sa)
	}
	for i := range b {
		b[i] = float32(float64(b[i]) * sb)
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// EmbedderMinSimilarity is the calibrated minimum cosine for candidate
// retrieval with a HybridEmbedder of EmbedderDim (ARCHITECTURE.md §5.2
// min_similarity), by HashEmbedderMinSimilarity's rule on the same pairs
// (TestEmbedderCalibration recomputes it).
const EmbedderMinSimilarity = 0.22
