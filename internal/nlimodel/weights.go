package nlimodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The weights file: the magic line, the dimension (uint32, little
// endian), one scale per class (float32), then the 3×dim weights as int8,
// class-major: weight = int8 × scale. Quantizing to a byte keeps the file
// small (3 MiB at 2^20) and is done the same way every time.
const magic = "evidencefleet nli weights v1\n"

// maxDim bounds the dimension a weights file may declare.
const maxDim = 1 << 24

// Encode quantizes m's weights to the weights file format.
func Encode(m *Model) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	_ = binary.Write(&b, binary.LittleEndian, m.Dim)
	var scales [3]float32
	for k := range 3 {
		mx := float32(0)
		for _, w := range m.W[uint32(k)*m.Dim : uint32(k+1)*m.Dim] {
			mx = max(mx, float32(math.Abs(float64(w))))
		}
		scales[k] = mx / 127
	}
	_ = binary.Write(&b, binary.LittleEndian, scales)
	q := make([]byte, len(m.W))
	for i, w := range m.W {
		s := scales[uint32(i)/m.Dim]
		if s > 0 {
			q[i] = byte(int8(math.Round(float64(w / s))))
		}
	}
	b.Write(q)
	return b.Bytes()
}

// Decode reads a weights file.
func Decode(data []byte) (*Model, error) {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return nil, errors.New("nlimodel: not a weights file")
	}
	if len(rest) < 16 {
		return nil, errors.New("nlimodel: weights file truncated")
	}
	dim := binary.LittleEndian.Uint32(rest)
	if dim == 0 || dim > maxDim {
		return nil, fmt.Errorf("nlimodel: dimension %d out of range", dim)
	}
	var scales [3]float32
	for k := range 3 {
		scales[k] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4+4*k:]))
	}
	q := rest[16:]
	if len(q) != 3*int(dim) {
		return nil, fmt.Errorf("nlimodel: %d weights for dimension %d, want %d", len(q), dim, 3*dim)
	}
	m := &Model{Dim: dim, W: make([]float32, len(q))}
	for i, v := range q {
		m.W[i] = float32(int8(v)) * scales[uint32(i)/dim]
	}
	return m, nil
}
