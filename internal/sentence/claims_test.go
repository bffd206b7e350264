package sentence

import (
	"strings"
	"testing"
)

// claimsText mixes English Wikipedia sentences ("Global warming", "Sea level
// rise"; CC BY-SA 4.0, quoted in the Climate-FEVER dataset, see
// testdata/README.md) with sentences the baseline must reject.
const claimsText = `Global warming

Global warming is the long-term rise in the average temperature of the Earth's climate system. Is global warming really caused by humans? Multiple independently produced instrumental datasets confirm that the 2009–2018 decade was 0.93 ± 0.07 °C warmer than the pre-industrial baseline (1850–1900).[12] Sea levels rose.

Effects

Surface temperature increases are greatest in the Arctic, which has contributed to the retreat of glaciers, permafrost, and sea ice.[citation needed] What a remarkable and frightening change this has been for everyone!

A list of greenhouse gases: carbon dioxide, methane, nitrous oxide, ozone, water vapour and fluorinated gases.

Between 1993 and 2017, the global mean sea level rose on average by 3.1 ± 0.3 mm per year, with an acceleration detected as well.

気候変動によって、世界の平均気温は1850年以降に約1.1度上昇したと報告されている。

Retrieved 12 March 2020 from the archive of the Guardian newspaper website in London.

This website uses cookies to ensure you get the best experience on our website.

© 2020 Example Media Ltd. All rights reserved by the owners of this site and its partners.

We think you should really read our other articles about the weather in your town.`

func checkClaims(t *testing.T, text string, max int, claims []Claim) {
	t.Helper()
	if len(claims) > max {
		t.Fatalf("%d claims > max %d", len(claims), max)
	}
	prev := -1
	for _, c := range claims {
		if got := runeSub(text, c.QuoteStart, c.QuoteEnd); got != c.Text {
			t.Fatalf("quote span [%d,%d) = %q, Text %q", c.QuoteStart, c.QuoteEnd, got, c.Text)
		}
		if c.QuoteStart <= prev {
			t.Fatalf("claims not in text order at %q", c.Text)
		}
		prev = c.QuoteStart
		if c.Confidence < 0 || c.Confidence > 1 {
			t.Fatalf("confidence %v out of range", c.Confidence)
		}
	}
}

func TestClaims(t *testing.T) {
	t.Parallel()
	all := Claims(claimsText, 100)
	checkClaims(t, claimsText, 100, all)
	got := map[string]float64{}
	for _, c := range all {
		got[c.Text] = c.Confidence
	}
	want := []string{
		"Global warming is the long-term rise in the average temperature of the Earth's climate system.",
		// trailing reference markers are left out of the quote span
		"Multiple independently produced instrumental datasets confirm that the 2009–2018 decade was 0.93 ± 0.07 °C warmer than the pre-industrial baseline (1850–1900).",
		"Surface temperature increases are greatest in the Arctic, which has contributed to the retreat of glaciers, permafrost, and sea ice.",
		"Between 1993 and 2017, the global mean sea level rose on average by 3.1 ± 0.3 mm per year, with an acceleration detected as well.",
		"気候変動によって、世界の平均気温は1850年以降に約1.1度上昇したと報告されている。",
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("missing claim %q", w)
		}
	}
	for text := range got {
		for _, bad := range []string{"Is global", "Sea levels rose", "remarkable", "A list of", "Retrieved", "cookies", "rights reserved", "We think", "Effects"} {
			if strings.Contains(text, bad) {
				t.Errorf("rejected sentence returned: %q", text)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d claims: %v", len(got), got)
	}
	// Numbers, dates and comparatives outrank a plain definition.
	if got[want[1]] <= got[want[0]] || got[want[3]] <= got[want[0]] {
		t.Errorf("scores not ordered as expected: %v", got)
	}

	top := Claims(claimsText, 2)
	checkClaims(t, claimsText, 2, top)
	if len(top) != 2 || top[0].Text != want[1] || top[1].Text != want[3] {
		t.Errorf("top 2 = %+v", top)
	}
	if Claims(claimsText, 0) != nil || Claims("", 5) != nil {
		t.Error("max 0 or empty text must give nil")
	}
}

func TestClaimsWikipedia(t *testing.T) {
	t.Parallel()
	text := wikiText(t)
	for _, max := range []int{1, 10, 1000} {
		claims := Claims(text, max)
		checkClaims(t, text, max, claims)
		if len(claims) == 0 {
			t.Fatalf("max %d: no claims", max)
		}
		for _, c := range claims {
			n := len(strings.Fields(c.Text))
			if n < 8 || n > 60 || strings.HasSuffix(c.Text, "?") {
				t.Errorf("bad claim %q", c.Text)
			}
		}
	}
	a, b := Claims(text, 10), Claims(text, 10)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic")
		}
	}
}

func TestClaimsOffsetsNonASCII(t *testing.T) {
	t.Parallel()
	text := "Café 🌍 notes\n\nIn Montréal, the café’s owner said summer temperatures rose by 2 °C between 1990 and 2020 👩‍🔬."
	claims := Claims(text, 5)
	checkClaims(t, text, 5, claims)
	if len(claims) != 1 || claims[0].QuoteStart != 14 {
		t.Fatalf("got %+v", claims)
	}
}

func TestTrimRefMarkers(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Done.[1]":                "Done.",
		"Done.[1][23][a]":         "Done.",
		"Done.[citation needed]":  "Done.",
		"Done. [note 3]":          "Done.",
		"Array index x[1]":        "Array index x",
		"Keep [this bracket].":    "Keep [this bracket].",
		"Keep [Some Long Remark]": "Keep [Some Long Remark]",
		"[1]":                     "",
	} {
		if got := in[:trimRefMarkers(in, 0, len(in))]; got != want {
			t.Errorf("trimRefMarkers(%q) = %q want %q", in, got, want)
		}
	}
}

func TestClaimsFilters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sentence string
		keep     bool
	}{
		{"JavaScript was created in 1995 by Brendan Eich at Netscape Communications.", true},
		{"The ice cores were retrieved from a depth of 3 km in Antarctica in 2019.", true},
		{"Retrieved 12 March 2020 from the archive of the Guardian newspaper website.", false},
		{"Please enable JavaScript in your browser settings to view this content properly.", false},
		{"The study was published at https://example.org/study in the spring of 2020.", false},
		{"Ocean heat content increased by 10% between 1990 and 2020 according to NOAA.", true},
		{"A list of greenhouse gases: carbon dioxide, methane, nitrous oxide and fluorinated gases.", false},
		{"Scientists reported record temperatures across Europe during the summer of 2022.", true},
		{"Mozilla deprecated the Mozilla Suite in favor of independent applications for each function.", true},
		{"Seven words only in this short sentence.", false},
		{"How much did the sea level rise between 1901 and 2018 across the world?", false},
		{"The sea level rose by twenty centimetres over the twentieth century and is still rising!", false},
		{"海面水位は1901年から2018年までの間に世界平均で約20センチメートル上昇した。", true},
		{"短い文です。", false},
		{strings.Repeat("Temperatures rose again and ", 16) + "then fell.", false}, // > 60 words
	}
	for _, tc := range tests {
		got := Claims(tc.sentence, 1)
		if (len(got) == 1) != tc.keep {
			t.Errorf("%q: got %+v, keep=%v", tc.sentence, got, tc.keep)
		}
	}
}
