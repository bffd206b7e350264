package extract

import (
	"strings"
	"testing"
)

// runeSub is the reference semantics of a stored span: Postgres
// substring(content from start+1 for end-start) == []rune slicing.
func runeSub(s string, start, end int) string {
	return string([]rune(s)[start:end])
}

func TestRuneSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		s            string
		bs, be       int
		wantS, wantE int
	}{
		{"ascii", "hello world", 6, 11, 6, 11},
		{"empty span", "hello", 2, 2, 2, 2},
		{"accented", "café crème brûlée", strings.Index("café crème brûlée", "crème"), strings.Index("café crème brûlée", "crème") + len("crème"), 5, 10},
		{"japanese", "地球温暖化は進んでいる", len("地球"), len("地球温暖化"), 2, 5},
		{"emoji", "ok 👍🏽 done", len("ok "), len("ok 👍🏽"), 3, 5},
		{"zwj emoji", "a👩‍🔬b", 1, len("a👩‍🔬"), 1, 4},
		{"start mid-rune backs up", "日本", 1, 3, 0, 1},
		{"end mid-rune extends", "日本", 0, 4, 0, 2},
		{"clamped", "abc", -5, 99, 0, 3},
		{"end before start", "abc", 2, 1, 2, 2},
		{"invalid utf8 counts bytes", "a\xffb", 2, 3, 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, e := RuneSpan(tc.s, tc.bs, tc.be)
			if s != tc.wantS || e != tc.wantE {
				t.Fatalf("RuneSpan(%q,%d,%d) = %d,%d want %d,%d", tc.s, tc.bs, tc.be, s, e, tc.wantS, tc.wantE)
			}
		})
	}
}

// TestRuneSpanSubstring checks the conversion against rune slicing for every
// rune-aligned byte span of non-ASCII strings.
func TestRuneSpanSubstring(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"Ünïcödé — “quotes” and ‘apostrophes’",
		"東京は日本の首都である。人口は約1400万人。",
		"🌍 warming: +1.1 °C since 1850 🔥🔥",
		"mixed: naïve 日本 👍🏽 end",
	} {
		var bounds []int
		for i := range s {
			bounds = append(bounds, i)
		}
		bounds = append(bounds, len(s))
		for _, b1 := range bounds {
			for _, b2 := range bounds {
				if b2 < b1 {
					continue
				}
				rs, re := RuneSpan(s, b1, b2)
				if got := runeSub(s, rs, re); got != s[b1:b2] {
					t.Fatalf("%q [%d,%d) -> [%d,%d) = %q want %q", s, b1, b2, rs, re, got, s[b1:b2])
				}
			}
		}
	}
}
