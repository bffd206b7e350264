package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Interval is a 95 % interval of a figure: the values the same model
// could show on another sample of the same size and kind.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// String is the interval as "low–high".
func (i Interval) String() string { return fmt.Sprintf("%.3f–%.3f", i.Low, i.High) }

// wilson is the 95 % Wilson score interval of k successes in n trials.
func wilson(k, n int) Interval {
	if n == 0 {
		return Interval{}
	}
	const z = 1.96
	p, fn := float64(k)/float64(n), float64(n)
	d := 1 + z*z/fn
	centre := (p + z*z/(2*fn)) / d
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / d
	return Interval{Low: max(0, centre-half), High: min(1, centre+half)}
}

// bootstrapRounds is how many resamples bootstrapMacroF1 draws.
const bootstrapRounds = 1000

// bootstrapMacroF1 is the 2.5th to 97.5th percentile of the macro-F1 of
// m (m[i][j]: gold i predicted j) over bootstrapRounds resamples of its
// items with replacement, from a generator with a fixed seed: the same
// matrix gives the same interval.
func bootstrapMacroF1(m [][]int) Interval {
	var items [][2]int
	for i, row := range m {
		for j, k := range row {
			for range k {
				items = append(items, [2]int{i, j})
			}
		}
	}
	if len(items) == 0 {
		return Interval{}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r := make([][]int, len(m))
	for i := range r {
		r[i] = make([]int, len(m))
	}
	f1s := make([]float64, bootstrapRounds)
	for b := range f1s {
		for _, row := range r {
			clear(row)
		}
		for range items {
			it := items[rng.IntN(len(items))]
			r[it[0]][it[1]]++
		}
		f1s[b] = matrixMacroF1(r)
	}
	slices.Sort(f1s)
	return Interval{Low: f1s[bootstrapRounds*25/1000], High: f1s[bootstrapRounds*975/1000-1]}
}

// matrixMacroF1 is Confusion.MacroF1 of a matrix: the mean F1 over the
// labels that occur as gold labels.
func matrixMacroF1(m [][]int) float64 {
	var sum float64
	n := 0
	for l := range m {
		gold, pred := 0, 0
		for k := range m {
			gold += m[l][k]
			pred += m[k][l]
		}
		if gold == 0 {
			continue
		}
		n++
		if pred == 0 || m[l][l] == 0 {
			continue
		}
		p, r := float64(m[l][l])/float64(pred), float64(m[l][l])/float64(gold)
		sum += 2 * p * r / (p + r)
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
