package builtin_test

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// unrelatedShifts is how many following rows supply unrelated hypotheses
// for each premise in the calibration.
const unrelatedShifts = 10

// quantile returns the q-quantile (nearest rank, lower) of sorted xs.
func quantile(sorted []float64, q float64) float64 {
	i := int(q * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// TestHashEmbedderCalibration measures the cosine distributions of related
// and unrelated premise/hypothesis pairs of the tuning parts of the NLI
// samples (calibrating is tuning; the report parts are kept for reporting)
// and checks that
// HashEmbedderMinSimilarity keeps most related pairs and drops most
// unrelated ones (see its doc comment for the rule and the numbers).
func TestHashEmbedderCalibration(t *testing.T) {
	t.Parallel()
	checkCalibration(t, builtin.NewHashEmbedder(builtin.HashEmbedderDim), builtin.HashEmbedderMinSimilarity)
}

// TestEmbedderCalibration is the same for the built-in embedder and
// EmbedderMinSimilarity, and checks that its word vectors separate related
// from unrelated pairs better than hashed n-grams alone.
func TestEmbedderCalibration(t *testing.T) {
	t.Parallel()
	e, err := builtin.NewHybridEmbedder(0)
	if err != nil {
		t.Fatal(err)
	}
	auc := checkCalibration(t, e, builtin.EmbedderMinSimilarity)
	hashAUC := checkCalibration(t, builtin.NewHashEmbedder(builtin.HashEmbedderDim), builtin.HashEmbedderMinSimilarity)
	t.Logf("AUC related against unrelated: %.3f, hashed n-grams alone %.3f", auc, hashAUC)
	if auc < hashAUC+0.01 {
		t.Errorf("AUC %.3f, want above the hashed n-grams' %.3f", auc, hashAUC)
	}
}

// checkCalibration logs e's cosines of related and unrelated pairs of the
// tuning parts and checks th against them; it returns the probability
// that a related pair has the higher cosine than an unrelated one (AUC).
func checkCalibration(t *testing.T, e models.Embedder, th float64) float64 {
	t.Helper()
	var related, unrelated []float64
	for _, name := range nliFiles {
		rows := loadNLI(t, nliTuneDir, name)
		prem := make([]string, len(rows))
		hyp := make([]string, len(rows))
		for i, r := range rows {
			prem[i], hyp[i] = r.Premise, r.Hypothesis
		}
		pv, err := e.Embed(context.Background(), prem)
		if err != nil {
			t.Fatal(err)
		}
		hv, err := e.Embed(context.Background(), hyp)
		if err != nil {
			t.Fatal(err)
		}
		var fr, fu []float64
		for i := range rows {
			fr = append(fr, models.Cosine(pv[i], hv[i]))
			for s := 1; s <= unrelatedShifts; s++ {
				j := (i + s) % len(rows)
				if rows[j].Premise == rows[i].Premise {
					continue // same premise: the hypothesis is related
				}
				fu = append(fu, models.Cosine(pv[i], hv[j]))
			}
		}
		logDist(t, e.Model()+" "+name, th, fr, fu)
		related = append(related, fr...)
		unrelated = append(unrelated, fu...)
	}
	recall, reject := logDist(t, e.Model()+" all", th, related, unrelated)

	// The rule: 10th percentile of related cosines (90 % recall), rounded
	// down to two decimals. Log it and, for comparison, an 80 % target.
	r := append([]float64(nil), related...)
	u := append([]float64(nil), unrelated...)
	sort.Float64s(r)
	sort.Float64s(u)
	for _, target := range []float64{0.90, 0.80} {
		// 1-target rounded, so that 1-0.90 is the 10th percentile
		// logDist shows (it is 0.09999… in floating point).
		q := math.Round((1-target)*100) / 100
		rule := math.Floor(quantile(r, q)*100) / 100
		keptU := float64(len(u)-sort.SearchFloat64s(u, rule)) / float64(len(u))
		keptR := float64(len(r)-sort.SearchFloat64s(r, rule)) / float64(len(r))
		t.Logf("%s recall target %.0f%%: threshold %.2f, related kept %.3f, unrelated kept %.4f", e.Model(), target*100, rule, keptR, keptU)
		if target == 0.90 && rule != th {
			t.Errorf("the rule gives %.2f but the minimum similarity of %s is %.2f", rule, e.Model(), th)
		}
	}
	if recall < 0.88 {
		t.Errorf("%s: recall of related pairs at %.2f = %.3f, want >= 0.88", e.Model(), th, recall)
	}
	if reject < 0.65 {
		t.Errorf("%s: rejection of unrelated pairs at %.2f = %.3f, want >= 0.65", e.Model(), th, reject)
	}
	// AUC by ranks: for each related cosine, the unrelated ones below it
	// (ties count half).
	var wins float64
	for _, x := range r {
		lo := sort.SearchFloat64s(u, x)
		hi := sort.Search(len(u), func(i int) bool { return u[i] > x })
		wins += float64(lo) + float64(hi-lo)/2
	}
	return wins / float64(len(r)) / float64(len(u))
}

// logDist logs quantiles of both distributions and the recall/rejection at
// threshold th, which it returns.
func logDist(t *testing.T, name string, th float64, related, unrelated []float64) (recall, reject float64) {
	t.Helper()
	r := append([]float64(nil), related...)
	u := append([]float64(nil), unrelated...)
	sort.Float64s(r)
	sort.Float64s(u)
	kept := len(r) - sort.SearchFloat64s(r, th)
	keptU := len(u) - sort.SearchFloat64s(u, th)
	recall = float64(kept) / float64(len(r))
	reject = 1 - float64(keptU)/float64(len(u))
	t.Logf("%-20s related n=%d p05=%.3f p10=%.3f p25=%.3f p50=%.3f | unrelated n=%d p50=%.3f p90=%.3f p95=%.3f p99=%.3f | at %.2f: recall=%.3f unrelated kept=%.4f",
		name, len(r), quantile(r, 0.05), quantile(r, 0.10), quantile(r, 0.25), quantile(r, 0.5),
		len(u), quantile(u, 0.5), quantile(u, 0.9), quantile(u, 0.95), quantile(u, 0.99),
		th, recall, 1-reject)
	return recall, reject
}
