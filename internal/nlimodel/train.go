package nlimodel

import (
	"fmt"
	"math"
)

// Example is one labelled pair; Label indexes Labels.
type Example struct {
	Premise, Hypothesis string
	Label               int
}

// TrainOptions set the training.
type TrainOptions struct {
	Dim    uint32  // hashed feature space: a power of two
	Epochs int     // passes over the examples, in the given order
	Rate   float64 // AdaGrad learning rate
	L2     float64 // L2 penalty per update
}

// Train fits a model by AdaGrad on the examples in order: the same
// examples and options give the same weights, bit for bit.
func Train(examples []Example, o TrainOptions) *Model {
	if o.Dim == 0 || o.Dim&(o.Dim-1) != 0 {
		panic(fmt.Sprintf("nlimodel: Train with dimension %d, not a power of two", o.Dim))
	}
	m := &Model{Dim: o.Dim, W: make([]float32, 3*o.Dim)}
	g2 := make([]float32, 3*o.Dim)
	feats := make([][]uint32, len(examples))
	for i, e := range examples {
		feats[i] = Features(e.Premise, e.Hypothesis, o.Dim)
	}
	for range o.Epochs {
		for i, e := range examples {
			p := m.probs(feats[i])
			for k := range 3 {
				grad := p[k]
				if k == e.Label {
					grad--
				}
				for _, j := range feats[i] {
					at := 3*j + uint32(k)
					w := &m.W[at]
					// float64(…) rounds the product: no fused multiply-add,
					// so the weights are the same on every architecture.
					g := grad + float64(o.L2*float64(*w))
					g2[at] += float32(g * g)
					*w -= float32(o.Rate * g / math.Sqrt(float64(g2[at])+1e-8))
				}
			}
		}
	}
	return m
}
