package sentence

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func runeSub(s string, start, end int) string {
	return string([]rune(s)[start:end])
}

// wikiText is ~10 KB of English Wikipedia sentences (CC BY-SA 4.0; see
// testdata/README.md for the source and attribution).
func wikiText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/wikipedia_climate.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"english", "Sea level is rising. Why? Dr. Smith said so!  It is 3.7 mm/yr.",
			[]string{"Sea level is rising.", "Why?", "Dr. Smith said so!", "It is 3.7 mm/yr."}},
		{"paragraph breaks", "Heading\n\nFirst sentence. Second one.\nThird",
			[]string{"Heading", "First sentence.", "Second one.", "Third"}},
		{"reference markers stay", "Founded in 1998.[1] It grew quickly.[2][3] Done.[citation needed]",
			[]string{"Founded in 1998.[1]", "It grew quickly.[2][3]", "Done.[citation needed]"}},
		{"abbreviations", "Smith et al. Found warming. The U.S. Congress met. J. Doe agreed. It rained etc. Then sun.",
			[]string{"Smith et al. Found warming.", "The U.S. Congress met.", "J. Doe agreed.", "It rained etc.", "Then sun."}},
		{"japanese", "地球は温暖化している。海面が上昇した！本当？",
			[]string{"地球は温暖化している。", "海面が上昇した！", "本当？"}},
		{"emoji and accents", "Café 😀 opened. Naïve 👩‍🔬 tests ran.",
			[]string{"Café 😀 opened.", "Naïve 👩‍🔬 tests ran."}},
		{"empty", "  \n ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Split(tc.text)
			var texts []string
			for _, s := range got {
				if runeSub(tc.text, s.Start, s.End) != s.Text {
					t.Fatalf("span [%d,%d) != %q", s.Start, s.End, s.Text)
				}
				texts = append(texts, s.Text)
			}
			if strings.Join(texts, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q\nwant %q", texts, tc.want)
			}
		})
	}
}

func TestSplitWikipediaInvariant(t *testing.T) {
	t.Parallel()
	text := wikiText(t)
	ss := Split(text)
	if len(ss) < 50 {
		t.Fatalf("only %d sentences", len(ss))
	}
	runes := []rune(text)
	prev := 0
	for _, s := range ss {
		if s.Start < prev || s.Start >= s.End || string(runes[s.Start:s.End]) != s.Text || s.Text != strings.TrimSpace(s.Text) {
			t.Fatalf("bad sentence %+v", s)
		}
		prev = s.End
	}
}

func TestRuneCursor(t *testing.T) {
	t.Parallel()
	s := "aé日👍b"
	c := NewRuneCursor(s)
	want := map[int]int{}
	r := 0
	for i := range s {
		want[i] = r
		r++
	}
	want[len(s)] = r
	// forward, then backwards (restart), then forward again
	for _, b := range []int{0, 1, 3, 6, 10, 11, 3, 0, 11} {
		if got := c.At(b); got != want[b] {
			t.Fatalf("at(%d) = %d want %d", b, got, want[b])
		}
	}
	if utf8.RuneCountInString(s) != r {
		t.Fatal("bad setup")
	}
}
