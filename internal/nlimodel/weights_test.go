package nlimodel

import (
	"math"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	m := Train(toy(), TrainOptions{Dim: 1 << 10, Epochs: 5, Rate: 0.1})
	m.Temp = 1.5
	q, err := Decode(Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	if q.Dim != m.Dim || len(q.q) != len(m.W) || q.Temp != 1.5 {
		t.Fatalf("decoded dim %d, %d weights; want %d, %d", q.Dim, len(q.q), m.Dim, len(m.W))
	}
	if b := Encode(q); string(b) != string(Encode(m)) {
		t.Error("a decoded model encodes to other bytes")
	}
	q = q.dequantized()
	var mx [3]float64
	for i, w := range m.W {
		mx[i%3] = math.Max(mx[i%3], math.Abs(float64(w)))
	}
	for i := range m.W {
		if d := math.Abs(float64(q.W[i] - m.W[i])); d > mx[i%3]/254+1e-6 {
			t.Fatalf("weight %d: %v decoded as %v, more than half a quantization step off", i, m.W[i], q.W[i])
		}
	}
}

func TestDecodeRejectsWhatIsNotAWeightsFile(t *testing.T) {
	t.Parallel()
	good := Encode(&Model{Dim: 4, W: make([]float32, 12)})
	for name, data := range map[string][]byte{
		"empty":            nil,
		"other file":       []byte("PK\x03\x04 not weights"),
		"truncated header": good[:len(magic)+6],
		"v1 file":          append([]byte("evidencefleet nli weights v1\n"), good[len(magic):]...),
		"missing weights":  good[:len(good)-1],
		"dimension zero":   append([]byte(magic), make([]byte, 20)...),
		"huge dimension":   append([]byte(magic), 0xff, 0xff, 0xff, 0xff, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"zero temperature": append([]byte(magic), 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	} {
		if _, err := Decode(data); err == nil {
			t.Errorf("%s: decoded", name)
		} else if !strings.HasPrefix(err.Error(), "nlimodel: ") {
			t.Errorf("%s: error %q does not name the package", name, err)
		}
	}
	if _, err := Decode(good); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

func TestDefaultModelLoads(t *testing.T) {
	t.Parallel()
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 1<<20 {
		t.Errorf("dim %d, want 2^20 (the committed weights of make train-nli)", m.Dim)
	}
}
