package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Embeddings are stored as bytea: 4 bytes per dimension, big-endian IEEE 754
// float4, as Postgres's float4send writes them (migration 00004).

// EncodeVector returns v in the stored format.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.BigEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector appends the floats of a stored embedding to dst[:0]. A nil b
// (no embedding) decodes to nil.
func DecodeVector(b []byte, dst []float32) ([]float32, error) {
	if b == nil {
		return nil, nil
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding of %d bytes is not a whole number of float4s", len(b))
	}
	dst = dst[:0]
	for i := 0; i < len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.BigEndian.Uint32(b[i:])))
	}
	return dst, nil
}
