package nlimodel

import (
	"math"
	"testing"
)

func TestCalibrateFitsATemperatureAndKeepsTheRanking(t *testing.T) {
	t.Parallel()
	m := Train(toy(), TrainOptions{Dim: 1 << 12, Epochs: 30, Rate: 0.3})
	pairs := toy()
	before := make([][3]float64, len(pairs))
	for i, e := range pairs {
		before[i] = m.Scores(e.Premise, e.Hypothesis)
	}
	// Label half the pairs wrongly: the fitted temperature must soften an
	// over-confident model.
	noisy := append([]Example(nil), pairs...)
	for i := range noisy {
		if i%2 == 0 {
			noisy[i].Label = (noisy[i].Label + 1) % 3
		}
	}
	Calibrate(m, noisy)
	if !(m.Temp > 1) {
		t.Fatalf("temperature %.3f, want above 1 for an over-confident model", m.Temp)
	}
	again := *m
	Calibrate(&again, noisy)
	if again.Temp != m.Temp {
		t.Errorf("calibrating twice gave %v and %v", m.Temp, again.Temp)
	}
	for i, e := range pairs {
		after := m.Scores(e.Premise, e.Hypothesis)
		if argmax(after) != argmax(before[i]) {
			t.Errorf("pair %d: top class changed from %d to %d", i, argmax(before[i]), argmax(after))
		}
		if after[argmax(after)] > before[i][argmax(before[i])]+1e-12 {
			t.Errorf("pair %d: confidence rose from %.3f to %.3f under a softening temperature", i, before[i][argmax(before[i])], after[argmax(after)])
		}
	}
	// Monotone: a more confident pair before stays at least as confident.
	for i := range pairs {
		for j := range pairs {
			bi, bj := before[i][argmax(before[i])], before[j][argmax(before[j])]
			ai, aj := m.Scores(pairs[i].Premise, pairs[i].Hypothesis), m.Scores(pairs[j].Premise, pairs[j].Hypothesis)
			if bi > bj+1e-9 && ai[argmax(ai)] < aj[argmax(aj)]-1e-9 && argmax(ai) == argmax(aj) {
				t.Errorf("pairs %d and %d swapped order under calibration", i, j)
			}
		}
	}
}

func argmax(s [3]float64) int {
	k, _ := Top(s)
	return k
}

func TestNewReliability(t *testing.T) {
	t.Parallel()
	conf := []float64{0.35, 0.36, 0.95, 0.99, 1}
	ok := []bool{false, true, true, true, false}
	r := NewReliability(conf, ok, 4)
	if len(r.Bins) != 4 || r.Bins[0].N != 2 || r.Bins[3].N != 3 {
		t.Fatalf("bins %+v, want 2 pairs in the first and 3 in the last", r.Bins)
	}
	// first bin: confidence 0.355, accuracy 0.5; last: 0.98, 2/3.
	want := (2*math.Abs(0.5-0.355) + 3*math.Abs(2.0/3-0.98)) / 5
	if math.Abs(r.ECE-want) > 1e-9 {
		t.Errorf("ECE %.4f, want %.4f", r.ECE, want)
	}
	if e := NewReliability(nil, nil, 4); e.ECE != 0 {
		t.Errorf("empty table: ECE %v", e.ECE)
	}
}
