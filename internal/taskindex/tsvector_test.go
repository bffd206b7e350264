package taskindex

import (
	"fmt"
	"testing"
)

func TestParseTSVector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		lexemes []string
		counts  []int32
		bad     bool
	}{
		{in: "", lexemes: nil, counts: nil},
		{in: "'ice':1", lexemes: []string{"ice"}, counts: []int32{1}},
		{in: "'arctic':3 'ice':1,5,9 'melt':2", lexemes: []string{"arctic", "ice", "melt"}, counts: []int32{1, 3, 1}},
		{in: "'a':1A,2B 'b':3C,4D,5", lexemes: []string{"a", "b"}, counts: []int32{2, 3}},
		{in: "'stripped' 'also'", lexemes: []string{"stripped", "also"}, counts: []int32{1, 1}},
		{in: `'o''neil':1 'back\\slash':2`, lexemes: []string{"o'neil", `back\slash`}, counts: []int32{1, 1}},
		{in: "'1,000':4 '2.5':1", lexemes: []string{"1,000", "2.5"}, counts: []int32{1, 1}},
		{in: "ice:1", bad: true},
		{in: "'open", bad: true},
		{in: "'x':,", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			lex, cnt, err := ParseTSVector(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("accepted %q", tt.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q %v", lex, cnt) != fmt.Sprintf("%q %v", tt.lexemes, tt.counts) {
				t.Errorf("got %q %v, want %q %v", lex, cnt, tt.lexemes, tt.counts)
			}
		})
	}
}
