package store

import (
	"math"
	"slices"
	"testing"
)

func TestVectorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range [][]float32{{}, {1}, {0.5, -1.25, 3e-7, float32(math.Inf(-1)), math.SmallestNonzeroFloat32}} {
		got, err := DecodeVector(EncodeVector(v), nil)
		if err != nil || !slices.Equal(got, v) {
			t.Errorf("round trip of %v: %v, %v", v, got, err)
		}
	}
	if got, err := DecodeVector(nil, nil); got != nil || err != nil {
		t.Errorf("nil embedding: %v, %v", got, err)
	}
	if _, err := DecodeVector([]byte{1, 2, 3}, nil); err == nil {
		t.Error("3 bytes accepted")
	}
	// The stored format is float4send's: 1.0 is 3f 80 00 00.
	if b := EncodeVector([]float32{1}); string(b) != "\x3f\x80\x00\x00" {
		t.Errorf("1.0 encodes as % x", b)
	}
}
