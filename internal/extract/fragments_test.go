package extract

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/sentence"
)

// checkFragments verifies the documented invariants, and that no
// non-whitespace character of text is left out of every fragment.
func checkFragments(t *testing.T, text string, opt FragmentOptions, frags []Fragment) {
	t.Helper()
	opt = opt.norm()
	runes := []rune(text)
	covered := make([]bool, len(runes))
	prevEnd := 0
	for i, f := range frags {
		if f.Start < 0 || f.Start >= f.End || f.End > len(runes) {
			t.Fatalf("fragment %d bad span [%d,%d) (len %d)", i, f.Start, f.End, len(runes))
		}
		if got := string(runes[f.Start:f.End]); got != f.Text {
			t.Fatalf("fragment %d: substring %q != Text %q", i, got, f.Text)
		}
		if f.Start < prevEnd {
			t.Fatalf("fragment %d [%d,%d) overlaps previous end %d", i, f.Start, f.End, prevEnd)
		}
		prevEnd = f.End
		if f.End-f.Start > opt.MaxRunes {
			t.Fatalf("fragment %d has %d runes > max %d", i, f.End-f.Start, opt.MaxRunes)
		}
		first, _ := utf8.DecodeRuneInString(f.Text)
		last, _ := utf8.DecodeLastRuneInString(f.Text)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			t.Fatalf("fragment %d has surrounding whitespace: %q", i, f.Text)
		}
		for k := f.Start; k < f.End; k++ {
			covered[k] = true
		}
	}
	for k, r := range runes {
		if !covered[k] && !unicode.IsSpace(r) {
			t.Fatalf("rune %d (%q) not covered by any fragment", k, r)
		}
	}
}

var fragmentTexts = map[string]string{
	"empty":      "",
	"blank":      " \n\n\t ",
	"one":        "Just one short paragraph.",
	"japanese":   "地球温暖化\n\n地球温暖化は、地球の気候システムの平均気温が長期的に上昇する現象である。二酸化炭素の排出が主な原因とされる。海面は1993年以降に約10cm上昇した。\n\n北極の海氷は減少している。",
	"emoji":      "Weather 🌦️ report\n\nToday 👩‍🔬 scientists measured +1.5 °C 🔥 over the baseline. Résumé: naïve models under-estimated it. 👍🏽👍🏽👍🏽",
	"accented":   "Économie\n\nLa crème brûlée coûte 5 €. Ça a été dit à Zürich, São Paulo et Kraków.",
	"messy":      "  \n\nA\n\n\n\n  B paragraph with\nsingle line break and  double  spaces.\r\n\r\nC\u2029D after a paragraph separator.\n\n   ",
	"no spaces":  strings.Repeat("あ", 1500),
	"long words": strings.Repeat("supercalifragilistic ", 80) + strings.Repeat("x", 1300),
	"refs":       "Founded in 1998.[1] It grew quickly.[2][3] Today it is large.[citation needed] End.",
}

func TestFragmentsInvariants(t *testing.T) {
	t.Parallel()
	texts := map[string]string{"wikipedia": wikiText(t)}
	for k, v := range fragmentTexts {
		texts[k] = v
	}
	opts := []FragmentOptions{{}, {MaxRunes: 120, MinRunes: 30}, {MaxRunes: 25, MinRunes: 10}, {MaxRunes: 7, MinRunes: -1}, {MaxRunes: 1}, {MaxRunes: 40, MinRunes: 500}}
	for name, text := range texts {
		for _, opt := range opts {
			frags := Fragments(text, opt)
			checkFragments(t, text, opt, frags)
			if strings.TrimSpace(text) != "" && len(frags) == 0 {
				t.Errorf("%s %+v: no fragments", name, opt)
			}
		}
	}
}

func TestFragments(t *testing.T) {
	t.Parallel()
	type frag struct {
		text, heading string
	}
	long := "Global warming is the long-term rise in the average temperature of the Earth's climate system. " +
		"It is a major aspect of climate change. " +
		"Between 1901 and 2018, the globally averaged sea level rose by 15–25 cm."
	tests := []struct {
		name string
		text string
		opt  FragmentOptions
		want []frag
	}{
		{"one per paragraph",
			"The first paragraph is long enough to stand alone here.\n\nThe second paragraph is also long enough to stand alone.",
			FragmentOptions{},
			[]frag{{"The first paragraph is long enough to stand alone here.", ""}, {"The second paragraph is also long enough to stand alone.", ""}}},
		{"heading merged forward and recorded",
			"Introduction\n\nThe first paragraph is long enough to stand alone here.\n\nResults\n\nSea level rose by 15–25 cm between 1901 and 2018.",
			FragmentOptions{},
			[]frag{
				{"Introduction\n\nThe first paragraph is long enough to stand alone here.", "Introduction"},
				{"Results\n\nSea level rose by 15–25 cm between 1901 and 2018.", "Results"},
			}},
		{"short block merged forward in same section",
			"Methods\n\nShort note.\n\nThe measurements were taken every day for ten years.\n\nTiny.\n\nNext Section\n\nAnother paragraph that is long enough to stand on its own.",
			FragmentOptions{},
			[]frag{
				{"Methods\n\nShort note.\n\nThe measurements were taken every day for ten years.", "Methods"},
				{"Tiny.", "Methods"}, // not merged across a heading
				{"Next Section\n\nAnother paragraph that is long enough to stand on its own.", "Next Section"},
			}},
		{"long block split at sentences",
			long, FragmentOptions{MaxRunes: 140, MinRunes: 10},
			[]frag{
				{"Global warming is the long-term rise in the average temperature of the Earth's climate system. It is a major aspect of climate change.", ""},
				{"Between 1901 and 2018, the globally averaged sea level rose by 15–25 cm.", ""},
			}},
		{"long sentence split at words",
			"The effects of global warming include rising sea levels and more frequent extreme weather events.",
			FragmentOptions{MaxRunes: 40, MinRunes: -1},
			[]frag{
				{"The effects of global warming include", ""},
				{"rising sea levels and more frequent", ""},
				{"extreme weather events.", ""},
			}},
		{"japanese sentences",
			"概要\n\n地球温暖化は、地球の気候システムの平均気温が長期的に上昇する現象である。二酸化炭素の排出が主な原因とされる。",
			FragmentOptions{MaxRunes: 40, MinRunes: 1},
			[]frag{
				{"概要\n\n地球温暖化は、地球の気候システムの平均気温が長期的に上昇する現象である。", "概要"}, // exactly 40 runes
				{"二酸化炭素の排出が主な原因とされる。", "概要"},
			}},
		{"emoji offsets",
			"🌍🌍 Earth is warming by about 1.1 °C, scientists say.\n\n👍🏽 Second paragraph with enough text in it.",
			FragmentOptions{MinRunes: -1},
			[]frag{
				{"🌍🌍 Earth is warming by about 1.1 °C, scientists say.", ""},
				{"👍🏽 Second paragraph with enough text in it.", ""},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Fragments(tc.text, tc.opt)
			checkFragments(t, tc.text, tc.opt, got)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d fragments %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if got[i].Text != w.text || got[i].Heading != w.heading {
					t.Errorf("fragment %d = %q (heading %q), want %q (heading %q)", i, got[i].Text, got[i].Heading, w.text, w.heading)
				}
			}
		})
	}
}

func TestFragmentOffsetsNonASCII(t *testing.T) {
	t.Parallel()
	text := "Café 🌍\n\nÜber die Erde: 日本語のテキスト、絵文字👩‍🔬も含む。\n\nFin."
	frags := Fragments(text, FragmentOptions{MinRunes: -1})
	want := []struct{ s, e int }{{0, 6}, {8, 42}, {44, 48}}
	if len(frags) != len(want) {
		t.Fatalf("got %+v", frags)
	}
	for i, w := range want {
		if frags[i].Start != w.s || frags[i].End != w.e {
			t.Errorf("fragment %d [%d,%d) want [%d,%d) (%q)", i, frags[i].Start, frags[i].End, w.s, w.e, frags[i].Text)
		}
	}
	checkFragments(t, text, FragmentOptions{MinRunes: -1}, frags)
}

func TestIsHeadingBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"Introduction", true},
		{"2.1 Methods and materials", true},
		{"Sea level rise", true},
		{"概要", true},
		{"Results:", true},
		{"This is a sentence.", false},
		{"What is climate change?", false},
		{"lowercase start", false},
		{"1998", false},
		{"A heading\nwith two lines", false},
		{strings.Repeat("Word ", 16), false},
	}
	for _, tc := range tests {
		if got := isHeadingBlock(tc.s, utf8.RuneCountInString(tc.s), 600); got != tc.want {
			t.Errorf("isHeadingBlock(%q) = %v", tc.s, got)
		}
	}
}

func FuzzFragments(f *testing.F) {
	for _, s := range fragmentTexts {
		f.Add(s, 50, 10)
	}
	f.Add("a\xffb\n\n\xe6\x97", 5, 2)
	f.Fuzz(func(t *testing.T, text string, max, min int) {
		if max > 2000 || min > 2000 {
			return
		}
		opt := FragmentOptions{MaxRunes: max, MinRunes: min}
		frags := Fragments(text, opt)
		if !utf8.ValidString(text) {
			return // Text equality with []rune slicing needs valid UTF-8
		}
		checkFragments(t, text, opt, frags)
		for _, s := range sentence.Split(text) {
			if runeSub(text, s.Start, s.End) != s.Text {
				t.Fatalf("sentence span mismatch %+v", s)
			}
		}
	})
}
