package nlimodel

import "math"

// Calibrate sets m.Temp to the temperature that minimises the negative
// log-likelihood of the examples' labels (temperature scaling), searched
// by golden section over [0.25, 4] in log space: deterministic, and the
// ranking of the classes of a pair never changes.
func Calibrate(m *Model, ex []Example) {
	feats := make([][]uint32, len(ex))
	for i, e := range ex {
		feats[i] = Features(e.Premise, e.Hypothesis, m.Dim)
	}
	nll := func(logT float64) float64 {
		m.Temp = math.Exp(logT)
		s := 0.0
		for i, e := range ex {
			s -= math.Log(max(m.probs(feats[i])[e.Label], 1e-12))
		}
		return s
	}
	lo, hi := math.Log(0.25), math.Log(4)
	phi := (math.Sqrt(5) - 1) / 2
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := nll(a), nll(b)
	for range 40 {
		if fa < fb {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = nll(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = nll(b)
		}
	}
	m.Temp = math.Exp((lo + hi) / 2)
}

// Reliability is a calibration table: examples grouped by the confidence
// of their top class into Bins equal-width bins.
type Reliability struct {
	Bins []ReliabilityBin
	// ECE is the expected calibration error: the mean over examples of
	// |accuracy − confidence| of their bin.
	ECE float64
}

// ReliabilityBin is one bin of a Reliability table.
type ReliabilityBin struct {
	From, To   float64 // confidence range [From, To)
	N          int
	Confidence float64 // mean top-class confidence
	Accuracy   float64 // share whose top class is right
}

// NewReliability tabulates (confidence, correct) outcomes into bins
// equal-width bins over [1/3, 1] (a top class of three is never below 1/3).
func NewReliability(conf []float64, correct []bool, bins int) Reliability {
	r := Reliability{Bins: make([]ReliabilityBin, bins)}
	w := (1 - 1.0/3) / float64(bins)
	for i := range r.Bins {
		r.Bins[i].From, r.Bins[i].To = 1.0/3+float64(i)*w, 1.0/3+float64(i+1)*w
	}
	for i, c := range conf {
		k := min(bins-1, max(0, int((c-1.0/3)/w)))
		b := &r.Bins[k]
		b.N++
		b.Confidence += c
		if correct[i] {
			b.Accuracy++
		}
	}
	for i := range r.Bins {
		b := &r.Bins[i]
		if b.N > 0 {
			b.Confidence /= float64(b.N)
			b.Accuracy /= float64(b.N)
			r.ECE += float64(b.N) * math.Abs(b.Accuracy-b.Confidence)
		}
	}
	if len(conf) > 0 {
		r.ECE /= float64(len(conf))
	}
	return r
}

// Reliability tabulates m's top-class confidence on the examples against
// whether that class is their label, in bins bins (see NewReliability).
func (m *Model) Reliability(ex []Example, bins int) Reliability {
	conf := make([]float64, len(ex))
	ok := make([]bool, len(ex))
	for i, e := range ex {
		best, p := Top(m.Scores(e.Premise, e.Hypothesis))
		conf[i], ok[i] = p, best == e.Label
	}
	return NewReliability(conf, ok, bins)
}
