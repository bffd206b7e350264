package store

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// wire builds a real[] in Postgres's binary format.
func wire(ndim, oid uint32, elems []float32, nullAt int) []byte {
	b := binary.BigEndian.AppendUint32(nil, ndim)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, oid)
	if ndim == 0 {
		return b
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for i, f := range elems {
		if i == nullAt {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
			continue
		}
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

func TestDecodeFloat4Array(t *testing.T) {
	vals := []float32{0.5, -1.25, 3e-7, float32(math.Inf(1))}
	got, err := decodeFloat4Array(wire(1, float4OID, vals, -1), nil)
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("got %v, %v; want %v", got, err, vals)
	}
	if got, err := decodeFloat4Array(wire(0, float4OID, nil, -1), nil); err != nil || len(got) != 0 {
		t.Errorf("empty array: %v, %v", got, err)
	}
	bad := map[string][]byte{
		"short header":   {0, 0, 0, 1},
		"two dimensions": wire(2, float4OID, vals, -1),
		"double array":   wire(1, 701, vals, -1),
		"null element":   wire(1, float4OID, vals, 2),
		"truncated":      wire(1, float4OID, vals, -1)[:30],
	}
	for name, b := range bad {
		if _, err := decodeFloat4Array(b, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
