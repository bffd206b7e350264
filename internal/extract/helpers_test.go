package extract

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func mustParse(t testing.TB, s string) *html.Node {
	t.Helper()
	n, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
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
