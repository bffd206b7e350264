package nlimodel

import "math"

// Model is a multinomial logistic regression over hashed features.
type Model struct {
	Dim uint32
	W   []float32 // len 3*Dim: class-major
}

// Scores returns the class probabilities (entailment, neutral,
// contradiction) of a pair.
func (m *Model) Scores(premise, hypothesis string) [3]float64 {
	return m.probs(Features(premise, hypothesis, m.Dim))
}

func (m *Model) probs(idx []uint32) [3]float64 {
	var z [3]float64
	for k := range 3 {
		w := m.W[uint32(k)*m.Dim : uint32(k+1)*m.Dim]
		s := 0.0
		for _, i := range idx {
			s += float64(w[i])
		}
		z[k] = s
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
