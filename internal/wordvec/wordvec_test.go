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
	if v.Rank("ice") != 0 || v.RankBytes([]byte("melt")) != 1 || v.Rank("snow") != -1 || v.Word(1) != "melt" {
		t.Errorf("ranks ice %d melt %d snow %d, word 1 %q: want 0, 1, -1, melt", v.Rank("ice"), v.RankBytes([]byte("melt")), v.Rank("snow"), v.Word(1))
	}
	sum := make([]float32, VectorDim)
	v.AddRow(sum, 0, 2)
	v.AddRow(sum, 0, -1)
	for i, x := range v.Lookup("ice") {
		if math.Abs(float64(sum[i]-x)) > 1e-6 {
			t.Fatalf("2·ice − ice [%d] = %v, want %v", i, sum[i], x)
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
