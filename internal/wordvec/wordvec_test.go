package wordvec

import (
	"math"
	"testing"
)

func TestVectorsRoundTrip(t *testing.T) {
	t.Parallel()
	a, b := make([]float64, VectorDim), make([]float64, VectorDim)
	for i := range VectorDim {
		a[i], b[i] = float64(i%7)-3, math.Sin(float64(i))
	}
	data, err := EncodeVectors([]string{"ice", "melt", "ice"}, [][]float64{a, b, b})
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeVectors(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 2 || v.Lookup("snow") != nil {
		t.Fatalf("%d words, snow %v: want ice and melt only", v.Len(), v.Lookup("snow"))
	}
	var n float64
	for i := range VectorDim {
		n += a[i] * a[i]
	}
	for i, x := range v.Lookup("ice") { // the first vector of a word given twice
		if want := a[i] / math.Sqrt(n); math.Abs(float64(x)-want) > 0.01 {
			t.Fatalf("ice[%d] = %v, want %v (the unit vector, within a quantization step)", i, x, want)
		}
	}
	if _, err := DecodeVectors(data[:len(data)-1]); err == nil {
		t.Error("a truncated file decoded")
	}
	if _, err := EncodeVectors([]string{"zero"}, [][]float64{make([]float64, VectorDim)}); err == nil {
		t.Error("a zero vector encoded")
	}
}

// TestCommittedVectors: the committed training vectors decode, and their
// cosines say what GloVe says (a glacier is nearer ice than a tax is).
func TestCommittedVectors(t *testing.T) {
	t.Parallel()
	v, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 40000 {
		t.Errorf("%d words, want 40000", v.Len())
	}
	cos := func(x, y string) float64 {
		a, b := v.Lookup(x), v.Lookup(y)
		if a == nil || b == nil {
			t.Fatalf("%s or %s missing", x, y)
		}
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	if near, far := cos("glacier", "ice"), cos("glacier", "tax"); near < far+0.2 {
		t.Errorf("cos(glacier, ice) %.2f, cos(glacier, tax) %.2f: want the first well above", near, far)
	}
}
