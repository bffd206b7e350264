package textclip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
		{"abc", 0, ""},
		{"abc", 1, "…"},
		{"a", 1, "a"},
	} {
		if got := Runes(tc.s, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	huge := strings.Repeat("é", 2_000_000)
	if got := Runes(huge, 1000); utf8.RuneCountInString(got) != 1000 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("a 2M-character text clipped to %d characters", utf8.RuneCountInString(got))
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // never half a character
		{"abc", -1, "…"},
	} {
		if got := Bytes(tc.s, tc.n); got != tc.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
