package eval

import (
	"github.com/evidencefleet/evidencefleet/internal/nlimodel"

	"fmt"
	"io"
	"text/tabwriter"
)

// ClassScore is one class of a confusion matrix: how often it was the gold
// label and the prediction, and its precision, recall and F1.
type ClassScore struct {
	Label     string  `json:"label"`
	Gold      int     `json:"gold"`
	Predicted int     `json:"predicted"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// RecallInterval is the 95 % Wilson score interval of Recall.
	RecallInterval Interval `json:"recall_interval"`
}

// Scores summarises a confusion matrix over a fixed list of labels.
type Scores struct {
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	// MacroF1 is the mean F1 over the labels that occur as gold labels.
	MacroF1 float64 `json:"macro_f1"`
	// MajorityRate is the accuracy of always predicting the most frequent gold label.
	MajorityRate float64  `json:"majority_rate"`
	Labels       []string `json:"labels"`
	// Matrix[i][j] counts gold Labels[i] predicted as Labels[j].
	Matrix  [][]int      `json:"matrix"`
	Classes []ClassScore `json:"classes"`
	// AccuracyInterval is the 95 % Wilson score interval of Accuracy and
	// MacroF1Interval the bootstrap one of MacroF1 (bootstrapMacroF1): how
	// far another sample of N could move them.
	AccuracyInterval Interval `json:"accuracy_interval"`
	MacroF1Interval  Interval `json:"macro_f1_interval"`
	// Calibration tabulates the judgements' confidence against their
	// correctness (NLI pairs only).
	Calibration *nlimodel.Reliability `json:"calibration,omitempty"`
	// Separation is how well the judge's probabilities rank each
	// relation's gold pairs above the neutral ones (NLI pairs, when the
	// model gives its distribution).
	Separation *Separation `json:"separation,omitempty"`
}

// Score summarises c over labels (rows and columns in that order, including
// labels that never occur). Every label recorded in c must be in labels, or
// the matrix would not add up to N: it returns an error naming the stray one.
func Score(c *Confusion, labels []string) (Scores, error) {
	known := make(map[string]bool, len(labels))
	for _, l := range labels {
		known[l] = true
	}
	for _, l := range c.Labels() {
		if !known[l] {
			return Scores{}, fmt.Errorf("score: label %q is not one of %v", l, labels)
		}
	}
	s := Scores{
		N:            c.Total(),
		Accuracy:     c.Accuracy(),
		MacroF1:      c.MacroF1(),
		MajorityRate: c.MajorityRate(),
		Labels:       append([]string(nil), labels...),
		Matrix:       make([][]int, len(labels)),
		Classes:      make([]ClassScore, len(labels)),
	}
	for i, g := range labels {
		s.Matrix[i] = make([]int, len(labels))
		for j, p := range labels {
			n := c.Count(g, p)
			s.Matrix[i][j] = n
			s.Classes[i].Gold += n
			s.Classes[j].Predicted += n
		}
	}
	correct := 0
	for i := range labels {
		correct += s.Matrix[i][i]
	}
	s.AccuracyInterval, s.MacroF1Interval = wilson(correct, s.N), bootstrapMacroF1(s.Matrix)
	for i, l := range labels {
		s.Classes[i].Label = l
		s.Classes[i].Precision = c.Precision(l)
		s.Classes[i].Recall = c.Recall(l)
		s.Classes[i].RecallInterval = wilson(s.Matrix[i][i], s.Classes[i].Gold)
		s.Classes[i].F1 = c.F1(l)
	}
	return s, nil
}

// MatrixSum is the sum of every cell of the matrix; it equals N.
func (s Scores) MatrixSum() int {
	n := 0
	for _, row := range s.Matrix {
		for _, k := range row {
			n += k
		}
	}
	return n
}

// WriteMatrix writes the confusion matrix as an aligned table: one row per
// gold label with its counts per predicted label, its total, precision
// beside the label's base rate (its share of the gold labels: the precision
// of predicting it at random), recall with its 95 % interval and F1, then a
// line with N, accuracy and macro-F1 with their intervals, and majority
// rate.
func (s Scores) WriteMatrix(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "gold \\ predicted\t")
	for _, l := range s.Labels {
		fmt.Fprintf(tw, "%s\t", l)
	}
	fmt.Fprint(tw, "total\tprecision\tbase rate\trecall\trecall 95%\tF1\t\n")
	for i, l := range s.Labels {
		fmt.Fprintf(tw, "%s\t", l)
		for _, k := range s.Matrix[i] {
			fmt.Fprintf(tw, "%d\t", k)
		}
		c := s.Classes[i]
		base := 0.0
		if s.N > 0 {
			base = float64(c.Gold) / float64(s.N)
		}
		fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%s\t%.3f\t\n", c.Gold, c.Precision, base, c.Recall, c.RecallInterval, c.F1)
	}
	fmt.Fprint(tw, "predicted total\t")
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "%d\t", c.Predicted)
	}
	fmt.Fprintf(tw, "%d\t\t\t\t\t\t\n", s.N)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "N %d  accuracy %.3f (95%%: %s)  macro-F1 %.3f (95%%: %s)  majority-class rate %.3f\n",
		s.N, s.Accuracy, s.AccuracyInterval, s.MacroF1, s.MacroF1Interval, s.MajorityRate)
	return err
}
