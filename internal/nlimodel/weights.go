package nlimodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The weights file: the magic line, the dimension (uint32, little
// endian), the temperature (float32), one scale per class (float32), then
// the 3×dim weights as int8, feature-major (feature j's three classes
// together): weight = int8 × the scale of its class.
// Quantizing to a byte keeps the file small (3 MiB at 2^20) and is done the
// same way every time.
const magic = "evidencefleet nli weights v2\n"

// maxDim bounds the dimension a weights file may declare.
const maxDim = 1 << 24

// Encode quantizes m's weights to the weights file format (a decoded
// model is written back as it was read).
func Encode(m *Model) []byte {
	if m.W == nil {
		m = m.dequantized()
	}
	var b bytes.Buffer
	b.WriteString(magic)
	_ = binary.Write(&b, binary.LittleEndian, m.Dim)
	temp := float32(m.Temp)
	if temp <= 0 {
		temp = 1
	}
	_ = binary.Write(&b, binary.LittleEndian, temp)
	var scales [3]float32
	var mx [3]float32
	for i, w := range m.W {
		mx[i%3] = max(mx[i%3], float32(math.Abs(float64(w))))
	}
	for k := range 3 {
		scales[k] = mx[k] / 127
	}
	_ = binary.Write(&b, binary.LittleEndian, scales)
	q := make([]byte, len(m.W))
	for i, w := range m.W {
		s := scales[i%3]
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
	if len(rest) < 20 {
		return nil, errors.New("nlimodel: weights file truncated")
	}
	dim := binary.LittleEndian.Uint32(rest)
	if dim == 0 || dim > maxDim || dim&(dim-1) != 0 {
		return nil, fmt.Errorf("nlimodel: dimension %d is not a power of two up to %d", dim, maxDim)
	}
	temp := float64(math.Float32frombits(binary.LittleEndian.Uint32(rest[4:])))
	if !(temp > 0.01 && temp < 100) {
		return nil, fmt.Errorf("nlimodel: temperature %v out of range", temp)
	}
	var scales [3]float32
	for k := range 3 {
		scales[k] = math.Float32frombits(binary.LittleEndian.Uint32(rest[8+4*k:]))
	}
	q := rest[20:]
	if len(q) != 3*int(dim) {
		return nil, fmt.Errorf("nlimodel: %d weights for dimension %d, want %d", len(q), dim, 3*dim)
	}
	m := &Model{Dim: dim, Temp: temp, q: make([]int8, len(q)), scale: scales}
	for i, v := range q {
		m.q[i] = int8(v)
	}
	return m, nil
}

// dequantized returns a copy of a decoded model with float weights.
func (m *Model) dequantized() *Model {
	out := &Model{Dim: m.Dim, Temp: m.Temp, W: make([]float32, len(m.q))}
	for i, v := range m.q {
		out.W[i] = float32(v) * m.scale[i%3]
	}
	return out
}
