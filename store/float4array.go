package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// float4OID is Postgres's type oid of real.
const float4OID = 700

// decodeFloat4Array decodes a one-dimensional real[] in Postgres's binary
// wire format (array header, then a length and 4 big-endian bytes per
// element) straight into dst's storage. It is the hot path of loading a task's
// embeddings: pgx's generic array decoding costs a scan plan per element.
func decodeFloat4Array(b []byte, dst []float32) ([]float32, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("real[]: %d bytes, too short for an array header", len(b))
	}
	ndim := int32(binary.BigEndian.Uint32(b[0:]))
	elem := binary.BigEndian.Uint32(b[8:])
	if ndim == 0 {
		return dst[:0], nil
	}
	if ndim != 1 {
		return nil, fmt.Errorf("real[]: %d dimensions, want 1", ndim)
	}
	if elem != float4OID {
		return nil, fmt.Errorf("real[]: element type oid %d, want %d", elem, float4OID)
	}
	if len(b) < 20 {
		return nil, fmt.Errorf("real[]: %d bytes, too short for the dimension header", len(b))
	}
	n := int(int32(binary.BigEndian.Uint32(b[12:])))
	body := b[20:]
	if n < 0 || len(body) != n*8 {
		return nil, fmt.Errorf("real[]: %d elements in %d bytes", n, len(body))
	}
	dst = dst[:0]
	for i := range n {
		e := body[i*8:]
		if l := int32(binary.BigEndian.Uint32(e)); l != 4 {
			return nil, fmt.Errorf("real[]: element %d has length %d (NULL elements are not embeddings)", i, l)
		}
		dst = append(dst, math.Float32frombits(binary.BigEndian.Uint32(e[4:])))
	}
	return dst, nil
}
