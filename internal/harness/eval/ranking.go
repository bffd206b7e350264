package eval

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Separation is how well a judge's probabilities rank the pairs of each
// decisive relation above the neutral ones, whatever threshold it is given:
// if a relation's area is near 0.5, no threshold or calibration can get
// right edges of it out of the model; a low recall with a high area is a
// threshold to move.
type Separation struct {
	// Supports ranks gold supports pairs against gold neutral ones by
	// P(supports); Refutes the same for refutes by P(refutes).
	Supports AUC `json:"supports"`
	Refutes  AUC `json:"refutes"`
}

// AUC is the area under a ROC curve: the probability that a positive pair
// scores above a negative one (ties count half).
type AUC struct {
	Value float64 `json:"value"`
	// Interval is the 95 % interval of Hanley and McNeil (1982).
	Interval  Interval `json:"interval"`
	Positives int      `json:"positives"`
	Negatives int      `json:"negatives"`
}

// String is the area with its interval and counts.
func (a AUC) String() string {
	return fmt.Sprintf("%.3f (95%%: %s; %d against %d)", a.Value, a.Interval, a.Positives, a.Negatives)
}

// separation is the Separation of the judgements of examples (in order)
// against their gold labels, or nil when a judgement lacks its
// distribution (a model that answers with its top label alone) or a
// relation has no gold pair.
func separation(examples []NLIExample, js []models.Judgement) *Separation {
	for _, j := range js {
		if !j.Distribution.Known() {
			return nil
		}
	}
	return separate(examples, func(i int) (sup, ref float64) {
		return js[i].Distribution.Supports, js[i].Distribution.Refutes
	})
}

// separate is the Separation of the scores score(i) gives examples[i] for
// supports and refutes, or nil when a relation has no gold pair.
func separate(examples []NLIExample, score func(i int) (sup, ref float64)) *Separation {
	var sup, ref, neuSup, neuRef []float64
	for i, e := range examples {
		s, r := score(i)
		switch e.Gold {
		case models.Supports:
			sup = append(sup, s)
		case models.Refutes:
			ref = append(ref, r)
		case models.Neutral:
			neuSup = append(neuSup, s)
			neuRef = append(neuRef, r)
		}
	}
	if len(sup) == 0 || len(ref) == 0 || len(neuSup) == 0 {
		return nil
	}
	return &Separation{Supports: rocAUC(sup, neuSup), Refutes: rocAUC(ref, neuRef)}
}

// relatedness is the Separation of the cosine between each example's
// premise and hypothesis embeddings, for supports and refutes alike: what
// relatedness alone tells, with no direction, the reference a judge's
// probabilities have to beat. It embeds batch texts per call (≤ 0: 32).
func relatedness(ctx context.Context, emb models.Embedder, batch int, examples []NLIExample) (*Separation, error) {
	if batch <= 0 {
		batch = 32
	}
	texts := make([]string, 0, 2*len(examples))
	for _, e := range examples {
		texts = append(texts, e.Premise, e.Hypothesis)
	}
	vecs := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		end := min(start+batch, len(texts))
		vs, err := emb.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embedding texts %d–%d with %s: %w", start+1, end, emb.Model(), err)
		}
		if len(vs) != end-start {
			return nil, fmt.Errorf("%s returned %d vectors for %d texts", emb.Model(), len(vs), end-start)
		}
		vecs = append(vecs, vs...)
	}
	return separate(examples, func(i int) (sup, ref float64) {
		c := models.Cosine(vecs[2*i], vecs[2*i+1])
		return c, c
	}), nil
}

// rocAUC is the AUC of scores pos against neg (both non-empty), by the
// Mann–Whitney count over the merged ranking with tied scores sharing
// their mean rank.
func rocAUC(pos, neg []float64) AUC {
	type scored struct {
		v   float64
		pos bool
	}
	all := make([]scored, 0, len(pos)+len(neg))
	for _, v := range pos {
		all = append(all, scored{v, true})
	}
	for _, v := range neg {
		all = append(all, scored{v, false})
	}
	slices.SortFunc(all, func(a, b scored) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	var rankSum float64 // of the positives, ranks from 1
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mean := float64(i+1+j) / 2
		for _, s := range all[i:j] {
			if s.pos {
				rankSum += mean
			}
		}
		i = j
	}
	n1, n2 := float64(len(pos)), float64(len(neg))
	a := (rankSum - n1*(n1+1)/2) / (n1 * n2)
	q1, q2 := a/(2-a), 2*a*a/(1+a)
	se := math.Sqrt((a*(1-a) + (n1-1)*(q1-a*a) + (n2-1)*(q2-a*a)) / (n1 * n2))
	return AUC{Value: a, Interval: Interval{Low: max(0, a-1.96*se), High: min(1, a+1.96*se)},
		Positives: len(pos), Negatives: len(neg)}
}
