package sentence

import "testing"

// The benchmarks run on testdata/wikipedia_climate.txt: ~10 KB of English
// Wikipedia text (CC BY-SA 4.0, see testdata/README.md).

func BenchmarkSplit(b *testing.B) {
	text := wikiText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Split(text)
	}
}

func BenchmarkClaims(b *testing.B) {
	text := wikiText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Claims(text, 20)
	}
}
