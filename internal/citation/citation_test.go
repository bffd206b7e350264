package citation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// upTo is the evidence numbers 1..n of a task with n claims.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// ids is "E1 E3" as a list; "" is an empty one.
func ids(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Fields(s)
}

// TestCheckSeedExamples runs the examples of seed 001 ("Citation
// Validation", "Citation Coverage Analysis", the example output and the
// end-to-end flow).
func TestCheckSeedExamples(t *testing.T) {
	t.Parallel()
	const seedSummary = "Transformers revolutionized NLP by replacing recurrence with attention mechanisms [E1,E3]. \n" +
		"The architecture uses multi-head attention with 8 parallel heads for diverse relationship \n" +
		"capture [E7]. Positional encoding injects sequence information since transformers don't \n" +
		"process sequentially [E5].\n"
	const endToEnd = "Transformers, introduced in 2017 [E4], revolutionized \n" +
		"NLP with self-attention [E1] and multi-head architecture [E2].\n" +
		"They use scaled dot-product attention [E6] and positional \n" +
		"encoding [E3], achieving 28.4 BLEU [E5]."
	tests := []struct {
		name        string
		text        string
		task        []int
		ok          bool
		cited       string
		invalid     string
		uncited     string
		coverage    string
		fraction    float64
		factual     int
		unsupported int
	}{
		{"[E1,E3] is valid", "Transformers use attention [E1,E3].", upTo(5), true, "E1 E3", "", "E2 E4 E5", "2 of 5", 0.4, 1, 0},
		{"[E99] is invalid", "Transformers use attention [E1]. They scale well [E99].", upTo(5), false, "E1", "E99", "E2 E3 E4 E5", "1 of 5", 0.2, 2, 1},
		{"5 cited of 15", "Attention [E1]. Heads [E3]. Encoding [E5]. Scale [E7]. Speed [E9].", upTo(15), true,
			"E1 E3 E5 E7 E9", "", "E2 E4 E6 E8 E10 E11 E12 E13 E14 E15", "5 of 15", 1.0 / 3, 5, 0},
		{"the example output, hard-wrapped", seedSummary, upTo(15), true, "E1 E3 E5 E7", "",
			"E2 E4 E6 E8 E9 E10 E11 E12 E13 E14 E15", "4 of 15", 4.0 / 15, 3, 0},
		{"the end-to-end summary cites all 6", endToEnd, upTo(6), true, "E1 E2 E3 E4 E5 E6", "", "", "6 of 6", 1, 2, 0},
		{"the same summary against E1-E5 only", endToEnd, upTo(5), false, "E1 E2 E3 E4 E5", "E6", "", "5 of 5", 1, 2, 0},
		{"[E1-E6] is a range, not a citation", "All citations [E1-E6] valid.", upTo(6), false, "", "",
			"E1 E2 E3 E4 E5 E6", "0 of 6", 0, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Check(tc.text, tc.task)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK != tc.ok || !slices.Equal(r.Cited, ids(tc.cited)) || !slices.Equal(r.InvalidIDs, ids(tc.invalid)) ||
				!slices.Equal(r.Uncited, ids(tc.uncited)) {
				t.Errorf("ok %v cited %v invalid %v uncited %v, want %v %q %q %q", r.OK, r.Cited, r.InvalidIDs, r.Uncited,
					tc.ok, tc.cited, tc.invalid, tc.uncited)
			}
			if r.Coverage.Text != tc.coverage || r.Coverage.Fraction != tc.fraction || r.Coverage.Total != len(tc.task) {
				t.Errorf("coverage %+v, want %s (%v)", r.Coverage, tc.coverage, tc.fraction)
			}
			if r.Factual != tc.factual || r.UnsupportedCount != tc.unsupported || len(r.Unsupported) != tc.unsupported {
				t.Errorf("factual %d, unsupported %d %+v; want %d, %d", r.Factual, r.UnsupportedCount, r.Unsupported, tc.factual, tc.unsupported)
			}
		})
	}
}

func TestCheckGroups(t *testing.T) {
	t.Parallel()
	long := "E" + strings.Repeat("9", 40)
	tests := []struct {
		name      string
		text      string
		groups    int
		cited     string
		invalid   string // distinct, in id order
		malformed []string
	}{
		{"spaces after commas", "x [E1, E3] y", 1, "E1 E3", "", nil},
		{"spaces and tabs inside", "x [ E2 ,\tE4 ] y", 1, "E2 E4", "", nil},
		{"one id twice", "x [E1,E1] and [E1]", 2, "E1", "", nil},
		{"adjacent groups", "x [E1][E2]", 2, "E1 E2", "", nil},
		{"nested bracket", "x [[E1]]", 1, "E1", "", nil},
		{"leading zero is another id", "x [E01]", 1, "", "E01", nil},
		{"zero", "x [E0]", 1, "", "E0", nil},
		{"huge number", "x [E99999999999999999999]", 1, "", "E99999999999999999999", nil},
		{"longer than reported", "x [" + long + "]", 1, "", long[:23] + "…", nil},
		{"invalid ids in id order", "[E100] [E20] [E3] [E100]", 4, "E3", "E20 E100", nil},
		{"range", "x [E1-E3] y", 0, "", "", []string{"[E1-E3]"}},
		{"semicolon", "x [E1;E2]", 0, "", "", []string{"[E1;E2]"}},
		{"words", "x [E1 and E2]", 0, "", "", []string{"[E1 and E2]"}},
		{"trailing comma", "x [E1,]", 0, "", "", []string{"[E1,]"}},
		{"line break inside", "x [E1,\nE2] y", 0, "", "", []string{"[E1,"}},
		{"left open at the end", "x [E1, E2", 0, "", "", []string{"[E1, E2"}},
		{"left open before another", "x [E1 [E2]", 1, "E2", "", []string{"[E1 "}},
		{"lower case is not a citation", "x [e1] E1 (E1)", 0, "", "", nil},
		{"no digit is not a citation", "see [E] and [Eq. 3] and [Evidence 3]", 0, "", "", nil},
		{"empty text", "", 0, "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Check(tc.text, upTo(5))
			if err != nil {
				t.Fatal(err)
			}
			var malformed []string
			for _, m := range r.Malformed {
				malformed = append(malformed, m.Text)
			}
			if r.Groups != tc.groups || !slices.Equal(r.Cited, ids(tc.cited)) || !slices.Equal(r.InvalidIDs, ids(tc.invalid)) ||
				!slices.Equal(malformed, tc.malformed) || r.MalformedCount != len(tc.malformed) {
				t.Errorf("groups %d cited %v invalid %v malformed %q; want %d %q %q %q",
					r.Groups, r.Cited, r.InvalidIDs, malformed, tc.groups, tc.cited, tc.invalid, tc.malformed)
			}
			if want := tc.invalid == "" && tc.malformed == nil; r.OK != want {
				t.Errorf("ok %v, want %v", r.OK, want)
			}
		})
	}
}

// TestCheckPositions: offsets in bytes, lines and columns in characters
// from 1, past non-ASCII text and invalid bytes.
func TestCheckPositions(t *testing.T) {
	t.Parallel()
	text := "Glaciers — all of them — retreat [E1].\nThe Rhône lost ice [E99, E2].\n\n\xff\xfe [E7] and [E1-E2]."
	r, err := Check(text, upTo(5))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{
		{"E99", Position{Offset: strings.Index(text, "E99"), Line: 2, Column: 21}},
		{"E7", Position{Offset: strings.Index(text, "E7"), Line: 4, Column: 5}},
	}
	if !slices.Equal(r.Invalid, want) || r.InvalidCount != 2 {
		t.Errorf("invalid %+v, want %+v", r.Invalid, want)
	}
	wantM := []Malformed{{"[E1-E2]", Position{Offset: strings.Index(text, "[E1-"), Line: 4, Column: 13}}}
	if !slices.Equal(r.Malformed, wantM) {
		t.Errorf("malformed %+v, want %+v", r.Malformed, wantM)
	}
	if len(r.Unsupported) != 1 || r.Unsupported[0].Line != 4 || r.Unsupported[0].Column != 1 ||
		r.Unsupported[0].Text != "\uFFFD [E7] and [E1-E2]." {
		t.Errorf("unsupported %+v, want the last line's sentence at 4:1, its bad bytes one U+FFFD", r.Unsupported)
	}
}

func TestCheckBounds(t *testing.T) {
	t.Parallel()
	t.Run("text over the limit", func(t *testing.T) {
		t.Parallel()
		_, err := Check(strings.Repeat("a", MaxTextBytes+1), upTo(3))
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(MaxTextBytes)) {
			t.Errorf("err %v, want ErrTooLarge naming the limit", err)
		}
	})
	t.Run("non-positive evidence number", func(t *testing.T) {
		t.Parallel()
		if _, err := Check("x", []int{1, 0}); !errors.Is(err, ErrBadEvidenceNo) {
			t.Errorf("err %v, want ErrBadEvidenceNo", err)
		}
	})
	t.Run("one id of a megabyte", func(t *testing.T) {
		t.Parallel()
		text := "[E" + strings.Repeat("7", MaxTextBytes-3) + "]"
		r, err := Check(text, upTo(3))
		if err != nil {
			t.Fatal(err)
		}
		if r.InvalidCount != 1 || len(r.InvalidIDs[0]) > maxIDBytes+len("…") || len(r.Invalid[0].ID) > maxIDBytes+len("…") {
			t.Errorf("invalid %v %+v, want one id clipped", r.InvalidIDs, r.Invalid)
		}
	})
	t.Run("more citations than reported", func(t *testing.T) {
		t.Parallel()
		var sb strings.Builder
		for i := 0; sb.Len() < MaxTextBytes-40; i++ {
			fmt.Fprintf(&sb, "Fact %d [E%d].\n", i, i+10)
		}
		r, err := Check(sb.String(), upTo(3))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Truncated || len(r.Invalid) != MaxReported || len(r.InvalidIDs) != MaxReported || r.InvalidCount <= MaxReported ||
			len(r.Unsupported) != MaxReported || r.UnsupportedCount != r.InvalidCount || r.Factual != r.InvalidCount {
			t.Errorf("truncated %v, invalid %d of %d, ids %d, unsupported %d of %d, factual %d", r.Truncated, len(r.Invalid),
				r.InvalidCount, len(r.InvalidIDs), len(r.Unsupported), r.UnsupportedCount, r.Factual)
		}
		if r.InvalidIDs[0] != "E10" || r.InvalidIDs[1] != "E11" {
			t.Errorf("invalid ids start %v, want E10 E11 (id order)", r.InvalidIDs[:2])
		}
	})
	t.Run("a task of many ids", func(t *testing.T) {
		t.Parallel()
		r, err := Check("Cited [E1].", upTo(MaxReported+10))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Truncated || len(r.Uncited) != MaxReported || r.Coverage.Text != fmt.Sprintf("1 of %d", MaxReported+10) {
			t.Errorf("truncated %v, uncited %d, coverage %+v", r.Truncated, len(r.Uncited), r.Coverage)
		}
	})
	t.Run("a task of no ids", func(t *testing.T) {
		t.Parallel()
		r, err := Check("Cited [E1].", nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.OK || r.Coverage != (Coverage{Cited: 0, Total: 0, Fraction: 0, Text: "0 of 0"}) {
			t.Errorf("ok %v coverage %+v", r.OK, r.Coverage)
		}
	})
}

func TestCompareIDs(t *testing.T) {
	t.Parallel()
	got := []string{"E10", "E100000000000000000000", "E2", "E01", "E1", "E0", "E9"}
	slices.SortFunc(got, compareIDs)
	want := []string{"E0", "E1", "E01", "E2", "E9", "E10", "E100000000000000000000"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
}

// FuzzCheck: no text makes Check panic, and what it reports is valid
// UTF-8 at positions inside the text.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", "[E1,E3]", "[E99]", "x [E1-E3]. y", "[E", "[ E1 ,", "\xff[E1]\xfe.",
		"# H\n\n- a [E2]\n1) b. c? d:", "e.g. J. Smith [E" + strings.Repeat("9", 100) + "]", "...[E1]...", "[E1]\r\n[E2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Check(text, upTo(4))
		if err != nil {
			t.Fatal(err)
		}
		check := func(what, s string, p Position) {
			if !utf8.ValidString(s) || p.Offset < 0 || p.Offset > len(text) || p.Line < 1 || p.Column < 1 {
				t.Errorf("%s %q at %+v", what, s, p)
			}
		}
		for _, x := range r.Invalid {
			check("invalid", x.ID, x.Position)
		}
		for _, x := range r.Malformed {
			check("malformed", x.Text, x.Position)
		}
		for _, x := range r.Unsupported {
			check("unsupported", x.Text+x.Word, x.Position)
		}
		if r.Factual > r.Sentences || r.UnsupportedCount > r.Factual || r.Coverage.Cited > 4 {
			t.Errorf("counts %+v", r)
		}
	})
}
