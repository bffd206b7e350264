// Package wordvec holds word vectors: a subset of GloVe 6B (100
// dimensions) embedded in the binary (ATTRIBUTION.md), and the compact
// format it is stored in. The built-in embedder reads them to give words
// of like meaning nearby vectors.
package wordvec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// VectorDim is the dimension of the word vectors (GloVe 6B 100d).
const VectorDim = 100

// vectorMagic starts a word vector file: the magic line, the word count and
// the dimension (uint32, little endian), the scale (float32), then per word
// its length (a byte), its bytes and its dimension int8 components of its
// unit vector: component = int8 × scale.
const vectorMagic = "evidencefleet word vectors v1\n"

// Vectors are unit word vectors by word.
type Vectors struct {
	Dim   int
	row   map[string]int32
	words []string // by row, in the file's order
	q     []int8   // by row, the components over scale
	scale float32
}

// Lookup returns w's unit vector, or nil.
func (v *Vectors) Lookup(w string) []float32 {
	r, ok := v.row[w]
	if !ok {
		return nil
	}
	return v.Row(int(r), nil)
}

// Row returns the unit vector of the word in row r, in buf when it has
// room.
func (v *Vectors) Row(r int, buf []float32) []float32 {
	if cap(buf) < v.Dim {
		buf = make([]float32, v.Dim)
	}
	buf = buf[:v.Dim]
	for i, c := range v.q[r*v.Dim : (r+1)*v.Dim] {
		buf[i] = float32(c) * v.scale
	}
	return buf
}

// Rank returns w's row, which is its frequency rank in the file's order
// (0 the most frequent), or -1 when w has no vector.
func (v *Vectors) Rank(w string) int {
	r, ok := v.row[w]
	if !ok {
		return -1
	}
	return int(r)
}

// RankBytes is Rank of the word w.
func (v *Vectors) RankBytes(w []byte) int {
	r, ok := v.row[string(w)]
	if !ok {
		return -1
	}
	return int(r)
}

// Word returns the word of row r.
func (v *Vectors) Word(r int) string { return v.words[r] }

// AddRow adds weight times the unit vector of row r to dst (len Dim).
func (v *Vectors) AddRow(dst []float32, r int, weight float32) {
	w := weight * v.scale
	for i, c := range v.q[r*v.Dim : (r+1)*v.Dim] {
		dst[i] += w * float32(c)
	}
}

// Len is the number of words.
func (v *Vectors) Len() int { return len(v.row) }

// EncodeVectors writes words and their vectors (each normalised to unit
// length first) in the word vector format; the same input gives the same
// bytes.
func EncodeVectors(words []string, vecs [][]float64) ([]byte, error) {
	if len(words) != len(vecs) {
		return nil, fmt.Errorf("wordvec: %d words and %d vectors", len(words), len(vecs))
	}
	units := make([][]float64, len(vecs))
	var mx float64
	for i, v := range vecs {
		if len(v) != VectorDim {
			return nil, fmt.Errorf("wordvec: vector of %q has %d components, want %d", words[i], len(v), VectorDim)
		}
		var ss float64
		for _, a := range v {
			ss += float64(a * a)
		}
		n := math.Sqrt(ss)
		if n == 0 {
			return nil, fmt.Errorf("wordvec: vector of %q is zero", words[i])
		}
		units[i] = make([]float64, VectorDim)
		for k, a := range v {
			units[i][k] = a / n
			mx = math.Max(mx, math.Abs(units[i][k]))
		}
	}
	scale := mx / 127
	var b bytes.Buffer
	b.WriteString(vectorMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(words)))
	_ = binary.Write(&b, binary.LittleEndian, uint32(VectorDim))
	_ = binary.Write(&b, binary.LittleEndian, float32(scale))
	for i, w := range words {
		if w == "" || len(w) > 255 {
			return nil, fmt.Errorf("wordvec: word %q: want 1 to 255 bytes", w)
		}
		b.WriteByte(byte(len(w)))
		b.WriteString(w)
		for _, a := range units[i] {
			b.WriteByte(byte(int8(math.Round(a / scale))))
		}
	}
	return b.Bytes(), nil
}

// DecodeVectors reads a word vector file (uncompressed); of a word given
// twice the first vector counts.
func DecodeVectors(data []byte) (*Vectors, error) {
	rest, ok := bytes.CutPrefix(data, []byte(vectorMagic))
	if !ok || len(rest) < 12 {
		return nil, errors.New("wordvec: not a word vector file")
	}
	n := int(binary.LittleEndian.Uint32(rest))
	dim := int(binary.LittleEndian.Uint32(rest[4:]))
	scale := math.Float32frombits(binary.LittleEndian.Uint32(rest[8:]))
	if dim != VectorDim || !(scale > 0 && scale < 1) || n > len(rest)/(dim+2) {
		return nil, fmt.Errorf("wordvec: word vector file of %d words, dimension %d, scale %v", n, dim, scale)
	}
	rest = rest[12:]
	v := &Vectors{Dim: dim, row: make(map[string]int32, n), q: make([]int8, 0, n*dim), scale: scale}
	for i := range n {
		if len(rest) < 1 || len(rest) < 1+int(rest[0])+dim {
			return nil, fmt.Errorf("wordvec: word vector file truncated at word %d", i)
		}
		w := string(rest[1 : 1+int(rest[0])])
		q := rest[1+int(rest[0]) : 1+int(rest[0])+dim]
		rest = rest[1+int(rest[0])+dim:]
		if _, seen := v.row[w]; seen {
			continue
		}
		v.row[w] = int32(len(v.words))
		v.words = append(v.words, w)
		for _, c := range q {
			v.q = append(v.q, int8(c))
		}
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("wordvec: %d bytes after the last word vector", len(rest))
	}
	return v, nil
}
