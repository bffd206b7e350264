package nlimodel

import (
	"math"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	m := Train(toy(), TrainOptions{Dim: 1 << 10, Epochs: 5, Rate: 0.1})
	q, err := Decode(Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	if q.Dim != m.Dim || len(q.W) != len(m.W) {
		t.Fatalf("decoded dim %d, %d weights; want %d, %d", q.Dim, len(q.W), m.Dim, len(m.W))
	}
	for k := range 3 {
		mx := 0.0
		for _, w := range m.W[k*int(m.Dim) : (k+1)*int(m.Dim)] {
			mx = math.Max(mx, math.Abs(float64(w)))
		}
		for i := k * int(m.Dim); i < (k+1)*int(m.Dim); i++ {
			if d := math.Abs(float64(q.W[i] - m.W[i])); d > mx/254+1e-6 {
				t.Fatalf("weight %d: %v decoded as %v, more than half a quantization step off", i, m.W[i], q.W[i])
			}
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
		"missing weights":  good[:len(good)-1],
		"dimension zero":   append([]byte(magic), make([]byte, 16)...),
		"huge dimension":   append([]byte(magic), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
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
