package extract

import (
	"testing"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/sentence"
)

// TestSentenceClaimsAreLocated: the quote span of every claim the built-in
// extractor picks (sentence.Claims) is where LocateQuote finds its text,
// as the fleet locates an extractor's quotes in the version text.
func TestSentenceClaimsAreLocated(t *testing.T) {
	t.Parallel()
	texts := []string{wikiText(t),
		"Café 🌍 notes\n\nIn Montréal, the café’s owner said summer temperatures rose by 2 °C between 1990 and 2020 👩‍🔬.",
		"Done.[1] Multiple instrumental datasets confirm that the 2009–2018 decade was 0.93 °C warmer than 1850–1900.[12] Sea levels rose."}
	for _, text := range texts {
		claims := sentence.Claims(text, 1000)
		if len(claims) == 0 {
			t.Fatalf("no claims in %.40q", text)
		}
		for _, c := range claims {
			if s, e, ok := LocateQuote(text, c.Text); !ok || s != c.QuoteStart || e != c.QuoteEnd {
				t.Errorf("LocateQuote(%q) = %d,%d,%v; the claim's span is %d,%d", c.Text, s, e, ok, c.QuoteStart, c.QuoteEnd)
			}
		}
	}
}

func TestLocateQuote(t *testing.T) {
	t.Parallel()
	text := "Global warming is the long-term rise in the average temperature of the Earth's climate system.\n\n" +
		"Scientists said: “It is extremely likely that human influence has been the dominant cause.”\n\n" +
		"東京の気温は　上昇している。Café owners in Montréal say it’s “hotter” 🌡️ now.\n\n" +
		"Repeat. Repeat."
	tests := []struct {
		name  string
		quote string
		want  string // expected original substring; "" means not found
	}{
		{"verbatim", "the long-term rise in the average temperature", "the long-term rise in the average temperature"},
		{"surrounding whitespace ignored", "  \n the average temperature\t ", "the average temperature"},
		{"whitespace run equals run", "climate\nsystem.   Scientists   said:", "climate system.\n\nScientists said:"},
		{"straight quotes match curly", `"It is extremely likely that human influence`, "“It is extremely likely that human influence"},
		{"curly apostrophe matches straight", "the Earth’s climate", "the Earth's climate"},
		{"straight apostrophe matches curly", `it's "hotter"`, "it’s “hotter”"},
		{"ideographic space", "東京の気温は 上昇している。", "東京の気温は　上昇している。"},
		{"emoji", "“hotter” 🌡️ now.", "“hotter” 🌡️ now."},
		{"NFD quote", "Cafe\u0301 owners", "Café owners"},
		{"first occurrence", "Repeat.", "Repeat."},
		{"missing word", "the long-term rise of the average temperature", ""},
		{"case differs", "global warming is", ""},
		{"whitespace cannot vanish", "longterm", ""},
		{"whitespace cannot appear", "long-term rise in the aver age", ""},
		{"empty", "   ", ""},
		{"longer than text", text + " more", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, e, ok := LocateQuote(text, tc.quote)
			if tc.want == "" {
				if ok {
					t.Fatalf("found %q at [%d,%d), want not found", runeSub(text, s, e), s, e)
				}
				return
			}
			if !ok {
				t.Fatalf("not found")
			}
			if got := runeSub(text, s, e); got != tc.want {
				t.Fatalf("span [%d,%d) = %q want %q", s, e, got, tc.want)
			}
		})
	}
}

func TestLocateQuoteOffsets(t *testing.T) {
	t.Parallel()
	text := "日本語 😀 “quoted  text” end"
	s, e, ok := LocateQuote(text, `"quoted text"`)
	if !ok || s != 6 || e != 20 {
		t.Fatalf("got %d,%d,%v want 6,20,true", s, e, ok)
	}
	s, e, ok = LocateQuote(text, "日本語")
	if !ok || s != 0 || e != 3 {
		t.Fatalf("got %d,%d,%v", s, e, ok)
	}
}

func FuzzLocateQuote(f *testing.F) {
	f.Add("a  “b” c’d\n\ne", "“b” c'd e", 0)
	f.Add("日本語 😀 text", "😀 text", 1)
	f.Fuzz(func(t *testing.T, text, quote string, _ int) {
		s, e, ok := LocateQuote(text, quote)
		if !ok {
			return
		}
		r := []rune(text)
		if s < 0 || s >= e || e > len(r) {
			t.Fatalf("bad span [%d,%d) for len %d", s, e, len(r))
		}
		if !utf8.ValidString(text) || !utf8.ValidString(quote) {
			return // []rune re-encoding changes invalid bytes
		}
		// the located span must itself match the quote under normalisation
		if _, _, ok2 := LocateQuote(string(r[s:e]), quote); !ok2 {
			t.Fatalf("span %q does not match quote %q", string(r[s:e]), quote)
		}
	})
}
