package eval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Confusion is a confusion matrix of NLI labels (or any string labels),
// counting gold → predicted. The zero value is ready to use.
type Confusion struct {
	counts map[string]map[string]int
	total  int
}

// Add records one judgement with gold label gold and predicted label pred.
func (c *Confusion) Add(gold, pred string) {
	if c.counts == nil {
		c.counts = make(map[string]map[string]int)
	}
	row := c.counts[gold]
	if row == nil {
		row = make(map[string]int)
		c.counts[gold] = row
	}
	row[pred]++
	c.total++
}

// Total returns the number of recorded judgements.
func (c *Confusion) Total() int { return c.total }

// Count returns how many judgements had gold label gold and prediction pred.
func (c *Confusion) Count(gold, pred string) int { return c.counts[gold][pred] }

// Labels returns every label seen as gold or prediction. The relation labels
// models.Supports, Refutes, Neutral come first in that order, then any others
// sorted.
func (c *Confusion) Labels() []string {
	seen := make(map[string]bool)
	for g, row := range c.counts {
		seen[g] = true
		for p := range row {
			seen[p] = true
		}
	}
	var out []string
	for _, l := range []string{models.Supports, models.Refutes, models.Neutral} {
		if seen[l] {
			out = append(out, l)
			delete(seen, l)
		}
	}
	var rest []string
	for l := range seen {
		rest = append(rest, l)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// Accuracy returns the fraction of judgements whose prediction equals the
// gold label, 0 when empty.
func (c *Confusion) Accuracy() float64 {
	if c.total == 0 {
		return 0
	}
	ok := 0
	for g, row := range c.counts {
		ok += row[g]
	}
	return float64(ok) / float64(c.total)
}

// Precision returns the precision of label (0 when it was never predicted).
func (c *Confusion) Precision(label string) float64 {
	pred := 0
	for _, row := range c.counts {
		pred += row[label]
	}
	if pred == 0 {
		return 0
	}
	return float64(c.counts[label][label]) / float64(pred)
}

// Recall returns the recall of label (0 when it never occurs as gold).
func (c *Confusion) Recall(label string) float64 {
	gold := 0
	for _, n := range c.counts[label] {
		gold += n
	}
	if gold == 0 {
		return 0
	}
	return float64(c.counts[label][label]) / float64(gold)
}

// F1 returns the F1 score of label: the harmonic mean of its precision and
// recall, 0 when both are 0.
func (c *Confusion) F1(label string) float64 {
	p, r := c.Precision(label), c.Recall(label)
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// MacroF1 returns the unweighted mean F1 over the gold labels present
// (labels only ever predicted do not add a class), 0 when empty.
func (c *Confusion) MacroF1() float64 {
	var sum float64
	n := 0
	for _, l := range c.Labels() {
		if _, gold := c.counts[l]; !gold {
			continue
		}
		sum += c.F1(l)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// MajorityRate returns the share of the most frequent gold label: the
// accuracy of always predicting it.
func (c *Confusion) MajorityRate() float64 {
	if c.total == 0 {
		return 0
	}
	best := 0
	for _, row := range c.counts {
		n := 0
		for _, k := range row {
			n += k
		}
		best = max(best, n)
	}
	return float64(best) / float64(c.total)
}

// String renders the matrix (rows gold, columns predicted) followed by
// per-label precision/recall/F1 and the accuracy and macro-F1 summary.
func (c *Confusion) String() string {
	labels := c.Labels()
	w := len("gold\\pred")
	for _, l := range labels {
		w = max(w, len(l))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", w, "gold\\pred")
	for _, l := range labels {
		fmt.Fprintf(&b, " %*s", w, l)
	}
	fmt.Fprintf(&b, " %*s %6s %6s %6s\n", w, "total", "prec", "recall", "f1")
	for _, g := range labels {
		fmt.Fprintf(&b, "%-*s", w, g)
		n := 0
		for _, p := range labels {
			k := c.counts[g][p]
			n += k
			fmt.Fprintf(&b, " %*d", w, k)
		}
		fmt.Fprintf(&b, " %*d %6.3f %6.3f %6.3f\n", w, n, c.Precision(g), c.Recall(g), c.F1(g))
	}
	fmt.Fprintf(&b, "n=%d accuracy=%.3f macroF1=%.3f majority=%.3f\n", c.total, c.Accuracy(), c.MacroF1(), c.MajorityRate())
	return b.String()
}
