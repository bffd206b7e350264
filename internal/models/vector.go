package models

import (
	"math"
	"slices"
)

// Cosine returns the cosine similarity of a and b. For L2-normalised vectors
// this equals their dot product. It returns 0 when the lengths differ, when
// either vector is empty or all zeros (e.g. the embedding of an empty text),
// or when the inputs hold NaN/Inf; the result is clamped to [-1,1].
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	var dot, na, nb float64
	for i, x := range a {
		y := float64(b[i])
		fx := float64(x)
		dot += fx * y
		na += fx * fx
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return clampCosine(dot / math.Sqrt(na*nb))
}

// clampCosine returns c within [-1, 1] (rounding can step past them), and
// 0 for NaN (a NaN or Inf among the inputs).
func clampCosine(c float64) float64 {
	switch {
	case math.IsNaN(c):
		return 0
	case c > 1:
		return 1
	case c < -1:
		return -1
	}
	return c
}

// TopK returns indices of the k highest scores >= min, best first, ties
// broken by lower index (deterministic). NaN scores are never returned; k <= 0
// yields an empty result.
func TopK(scores []float64, k int, min float64) []int {
	if k <= 0 || len(scores) == 0 {
		return []int{}
	}
	// better reports whether index i ranks before index j.
	better := func(i, j int) bool {
		if scores[i] != scores[j] {
			return scores[i] > scores[j]
		}
		return i < j
	}
	if k > len(scores) {
		k = len(scores)
	}
	// h is a binary heap whose root is the worst of the kept indices.
	h := make([]int, 0, k)
	down := func(i int) {
		n := len(h)
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			w := l
			if r := l + 1; r < n && better(h[l], h[r]) {
				w = r
			}
			if !better(h[i], h[w]) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	i := 0
	for ; i < len(scores) && len(h) < k; i++ {
		if !(scores[i] >= min) { // also rejects NaN
			continue
		}
		h = append(h, i)
		for j := len(h) - 1; j > 0; {
			p := (j - 1) / 2
			if !better(h[p], h[j]) {
				break
			}
			h[p], h[j] = h[j], h[p]
			j = p
		}
	}
	if len(h) == k {
		// Only a higher score than the root's beats it: on a tie the root's
		// lower index wins, as every kept index is lower than i. Such a
		// score is also >= min and no NaN.
		worst := scores[h[0]]
		for ; i < len(scores); i++ {
			if scores[i] > worst {
				h[0] = i
				down(0)
				worst = scores[h[0]]
			}
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case better(a, b):
			return -1
		}
		return 1
	})
	return h
}

// Quantize appends v rounded to int8 components at the scale max|v|/127
// to dst and returns the extended slice and the Euclidean norm of the
// appended components: a quarter of v's float32 size, which is what
// verify_nli's recall keeps of each fragment's embedding
// (internal/taskindex) and compares claims with by CosineQuantized on both
// recall paths, so that they rank alike. A vector with a NaN, an Inf or no
// non-zero component quantizes to zeros (norm 0).
func Quantize(dst []int8, v []float32) ([]int8, float32) {
	var lo, hi float32
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x) // min and max keep a NaN
	}
	m := max(hi, -lo)
	n := len(dst)
	dst = slices.Grow(dst, len(v))[:n+len(v)]
	out := dst[n:]
	if !(m > 0 && m <= math.MaxFloat32) { // zero, NaN or ±Inf
		clear(out)
		return dst, 0
	}
	inv := 127 / m
	var ss int32
	for i, x := range v {
		// x·inv is in [-127, 127]; shifted to be positive, truncation
		// rounds it (halves up) without a branch on its sign
		q := int32(x*inv+128.5) - 128
		out[i] = int8(q)
		ss += q * q
	}
	return dst, float32(math.Sqrt(float64(ss)))
}

// CosineQuantized is Cosine of a and the vector that Quantize rounded to q
// (of norm qNorm), up to the rounding: the scale cancels out. It is 0 for
// a zero or mismatched vector.
func CosineQuantized(a []float32, q []int8, qNorm float32) float64 {
	return NewCosineQuery(a).Quantized(q, qNorm)
}

// CosineQuery is one vector to compare with many by CosineQuantized: its
// norm is summed once.
type CosineQuery struct {
	v    []float32
	norm float64
}

// NewCosineQuery prepares a for Quantized.
func NewCosineQuery(a []float32) CosineQuery {
	var na float64
	for _, x := range a {
		fx := float64(x)
		na += fx * fx
	}
	return CosineQuery{v: a, norm: math.Sqrt(na)}
}

// Quantized is CosineQuantized(the query's vector, q, qNorm).
func (c CosineQuery) Quantized(q []int8, qNorm float32) float64 {
	if len(c.v) != len(q) || len(c.v) == 0 || qNorm == 0 || c.norm == 0 {
		return 0
	}
	q = q[:len(c.v)]
	var dot float64
	for i, x := range c.v {
		dot += float64(x) * float64(q[i])
	}
	return clampCosine(dot / (c.norm * float64(qNorm)))
}
