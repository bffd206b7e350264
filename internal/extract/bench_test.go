package extract

import (
	"strings"
	"testing"
)

// The benchmarks run on testdata/wikipedia_climate.txt: ~10 KB of English
// Wikipedia text (CC BY-SA 4.0, see testdata/README.md).

func BenchmarkFragments(b *testing.B) {
	text := wikiText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Fragments(text, FragmentOptions{})
	}
}

func BenchmarkFragmentsSmall(b *testing.B) {
	text := wikiText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Fragments(text, FragmentOptions{MaxRunes: 200})
	}
}

func BenchmarkLocateQuote(b *testing.B) {
	text := wikiText(b)
	// a quote near the end, with straight quotes and collapsed whitespace so
	// that the normalised search path runs
	quote := strings.ReplaceAll(`Just as on land, heat waves in the ocean occur more due to climate change`, " ", "  ")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := LocateQuote(text, quote); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkFromHTML(b *testing.B) {
	body := []byte(articlePage)
	u := mustURL(b, "https://news.example.org/climate/global-warming")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromHTML(body, u); err != nil {
			b.Fatal(err)
		}
	}
}
