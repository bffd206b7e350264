package eval

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	type obs struct{ gold, pred string }
	tests := []struct {
		name       string
		labels     []string
		obs        []obs
		wantMatrix [][]int
		wantGold   []int
		wantPred   []int
		wantAcc    float64
		wantErr    bool
	}{
		{
			name:   "3x3 with an unpredicted class",
			labels: NLILabels,
			obs: []obs{
				{"supports", "supports"}, {"supports", "neutral"}, {"supports", "neutral"},
				{"refutes", "neutral"}, {"neutral", "neutral"}, {"neutral", "supports"},
			},
			wantMatrix: [][]int{{1, 0, 2}, {0, 0, 1}, {1, 0, 1}},
			wantGold:   []int{3, 1, 2},
			wantPred:   []int{2, 0, 4},
			wantAcc:    2.0 / 6,
		},
		{
			name:       "4x4 keeps classes that never occur",
			labels:     ClaimClasses,
			obs:        []obs{{ClaimSupports, ClaimNotEnoughInfo}, {ClaimRefutes, ClaimRefutes}},
			wantMatrix: [][]int{{0, 0, 1, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
			wantGold:   []int{1, 1, 0, 0},
			wantPred:   []int{0, 1, 1, 0},
			wantAcc:    0.5,
		},
		{
			name:       "empty",
			labels:     NLILabels,
			wantMatrix: [][]int{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
			wantGold:   []int{0, 0, 0},
			wantPred:   []int{0, 0, 0},
		},
		{
			name:    "prediction outside the labels",
			labels:  NLILabels,
			obs:     []obs{{"supports", "entailment"}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Confusion
			for _, o := range tt.obs {
				c.Add(o.gold, o.pred)
			}
			s, err := Score(&c, tt.labels)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error for a label outside the list")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Matrix, tt.wantMatrix) {
				t.Errorf("matrix = %v, want %v", s.Matrix, tt.wantMatrix)
			}
			if s.N != len(tt.obs) || s.MatrixSum() != s.N {
				t.Errorf("N = %d, matrix sum %d, want both %d", s.N, s.MatrixSum(), len(tt.obs))
			}
			if math.Abs(s.Accuracy-tt.wantAcc) > 1e-12 {
				t.Errorf("accuracy = %v, want %v", s.Accuracy, tt.wantAcc)
			}
			for i, cl := range s.Classes {
				if cl.Label != tt.labels[i] || cl.Gold != tt.wantGold[i] || cl.Predicted != tt.wantPred[i] {
					t.Errorf("class %d = %+v, want label %s gold %d predicted %d", i, cl, tt.labels[i], tt.wantGold[i], tt.wantPred[i])
				}
				if cl.F1 != c.F1(cl.Label) || cl.Precision != c.Precision(cl.Label) || cl.Recall != c.Recall(cl.Label) {
					t.Errorf("class %s scores %+v differ from the confusion matrix's", cl.Label, cl)
				}
			}
			if s.MacroF1 != c.MacroF1() || s.MajorityRate != c.MajorityRate() {
				t.Errorf("macro-F1 %v / majority %v differ from the confusion matrix's %v / %v", s.MacroF1, s.MajorityRate, c.MacroF1(), c.MajorityRate())
			}

			var b bytes.Buffer
			if err := s.WriteMatrix(&b); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
			// header, one row per label, predicted totals, summary line
			if len(lines) != len(tt.labels)+3 {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tt.labels)+3, b.String())
			}
			for i, l := range tt.labels {
				f := strings.Fields(lines[i+1])
				if len(f) != len(tt.labels)+7 || f[0] != l {
					t.Errorf("row %d = %q, want %s, its counts, total, precision, base rate, recall, its interval, F1", i+1, lines[i+1], l)
					continue
				}
				if want := fmt.Sprintf("%.3f", float64(s.Classes[i].Gold)/float64(max(s.N, 1))); f[len(tt.labels)+3] != want {
					t.Errorf("row %s: base rate %s, want %s", l, f[len(tt.labels)+3], want)
				}
			}
			if !strings.HasPrefix(lines[len(lines)-1], "N ") {
				t.Errorf("last line = %q, want the summary", lines[len(lines)-1])
			}
		})
	}
}
