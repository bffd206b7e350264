package nlimodel

import "math"

// Model is a multinomial logistic regression over hashed features.
type Model struct {
	Dim uint32
	W   []float32 // len 3*Dim, feature-major: W[3*j+k] is feature j's weight for class k
	// Temp divides the scores before the softmax (temperature scaling,
	// fitted by Calibrate); 0 means 1.
	Temp float64

	// q and scale are the quantized weights of a decoded model, used
	// instead of W when W is nil: a quarter of the memory, so that more of
	// it stays in the cache.
	q     []int8
	scale [3]float32
}

// Scores returns the class probabilities (entailment, neutral,
// contradiction) of a pair.
func (m *Model) Scores(premise, hypothesis string) [3]float64 {
	return m.probs(Features(premise, hypothesis, m.Dim))
}

// ScoresOf is Scores on analysed texts (see Analyse); buf, when not nil,
// is reused for the pair's features.
func (m *Model) ScoresOf(premise, hypothesis *Text, buf *[]uint32) [3]float64 {
	var b []uint32
	if buf != nil {
		b = *buf
	}
	b = featuresInto(b, premise, hypothesis, m.Dim)
	if buf != nil {
		*buf = b
	}
	return m.probs(b)
}

func (m *Model) probs(idx []uint32) [3]float64 {
	var z [3]float64
	if m.W == nil {
		var s [3]int32
		for _, j := range idx {
			w := m.q[3*j : 3*j+3 : 3*j+3]
			s[0] += int32(w[0])
			s[1] += int32(w[1])
			s[2] += int32(w[2])
		}
		for k := range 3 {
			z[k] = float64(s[k]) * float64(m.scale[k])
		}
	} else {
		for _, j := range idx {
			w := m.W[3*j : 3*j+3 : 3*j+3]
			z[0] += float64(w[0])
			z[1] += float64(w[1])
			z[2] += float64(w[2])
		}
	}
	if m.Temp > 0 && m.Temp != 1 {
		for k := range 3 {
			z[k] /= m.Temp
		}
	}
	mx := math.Max(z[0], math.Max(z[1], z[2]))
	var sum float64
	for k := range 3 {
		z[k] = math.Exp(z[k] - mx)
		sum += z[k]
	}
	for k := range 3 {
		z[k] /= sum
	}
	return z
}

// Top returns the most probable class of s and its probability (the
// first of equals).
func Top(s [3]float64) (class int, p float64) {
	for k := 1; k < 3; k++ {
		if s[k] > s[class] {
			class = k
		}
	}
	return class, s[class]
}
