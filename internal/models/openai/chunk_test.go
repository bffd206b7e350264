package openaibackend

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkPieces asserts the splitChunks contract: pieces within the limit,
// trimmed, non-empty, substrings of text in order, and only white space
// between and around them.
func checkPieces(t *testing.T, text string, limit int, pieces []string) {
	t.Helper()
	at := 0
	for i, p := range pieces {
		if p == "" || strings.TrimSpace(p) != p {
			t.Errorf("piece %d %q is empty or untrimmed", i, p)
		}
		if n := utf8.RuneCountInString(p); n > limit {
			t.Errorf("piece %d has %d characters, limit %d", i, n, limit)
		}
		j := strings.Index(text[at:], p)
		if j < 0 {
			t.Fatalf("piece %d %q is not in the text after offset %d", i, p, at)
		}
		if gap := text[at : at+j]; strings.TrimSpace(gap) != "" {
			t.Errorf("non-space text %q skipped before piece %d", gap, i)
		}
		at += j + len(p)
	}
	if rest := text[at:]; strings.TrimSpace(rest) != "" {
		t.Errorf("non-space text %q after the last piece", rest)
	}
}

func TestSplitChunks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		text  string
		limit int
		check func(t *testing.T, pieces []string)
	}{
		{"blank", " \n\t ", 100, func(t *testing.T, p []string) {
			if len(p) != 0 {
				t.Errorf("pieces %q, want none", p)
			}
		}},
		{"short text is one trimmed piece", "  One sentence.  ", 100, func(t *testing.T, p []string) {
			if len(p) != 1 || p[0] != "One sentence." {
				t.Errorf("pieces %q", p)
			}
		}},
		{"paragraphs", paragraphPage(12), 300, func(t *testing.T, p []string) {
			for _, s := range p {
				if !strings.HasPrefix(s, "Paragraph ") || !strings.HasSuffix(s, ".") {
					t.Errorf("piece %q does not hold whole paragraphs", s)
				}
			}
		}},
		{"sentences without paragraph breaks", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40), 200, func(t *testing.T, p []string) {
			for _, s := range p {
				if !strings.HasPrefix(s, "The quick") || !strings.HasSuffix(s, "dog.") {
					t.Errorf("piece %q does not hold whole sentences", s)
				}
			}
		}},
		{"words without sentence ends", strings.Repeat("lorem ipsum dolor ", 60), 100, func(t *testing.T, p []string) {
			for _, s := range p {
				for _, w := range strings.Fields(s) {
					if w != "lorem" && w != "ipsum" && w != "dolor" {
						t.Errorf("word cut: %q", w)
					}
				}
			}
		}},
		{"no white space is cut hard on rune boundaries", strings.Repeat("日本語テキスト", 50), 100, func(t *testing.T, p []string) {
			if len(p) != 4 {
				t.Errorf("%d pieces, want 4 (350 characters, limit 100)", len(p))
			}
			for _, s := range p {
				if !utf8.ValidString(s) {
					t.Errorf("piece %q is not valid UTF-8", s)
				}
			}
		}},
		{"CJK full stops", strings.Repeat("東京は日本の首都です。", 30), 100, func(t *testing.T, p []string) {
			for _, s := range p {
				if !strings.HasSuffix(s, "。") {
					t.Errorf("piece %q does not end at a full stop", s)
				}
			}
		}},
		{"early break is not taken when a later one exists", "Short.\n\n" + strings.Repeat("word ", 60), 120, func(t *testing.T, p []string) {
			if p[0] == "Short." {
				t.Errorf("first piece %q: cut at a paragraph break in the first half of the window", p[0])
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pieces := splitChunks(tc.text, tc.limit)
			checkPieces(t, tc.text, tc.limit, pieces)
			tc.check(t, pieces)
			if first := firstChunk(tc.text, tc.limit); len(pieces) > 0 && first != pieces[0] || len(pieces) == 0 && first != "" {
				t.Errorf("firstChunk %q, want %q", first, pieces)
			}
		})
	}
}

func FuzzSplitChunks(f *testing.F) {
	f.Add(paragraphPage(3), 100)
	f.Add("a\u00a0b\u2028c. d! e? f。g", 101)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if !utf8.ValidString(text) || limit < 1 || limit > 1000 {
			return
		}
		pieces := splitChunks(text, limit)
		checkPieces(t, text, limit, pieces)
		if len(pieces) == 0 && strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0 {
			t.Errorf("no pieces for a non-blank text")
		}
	})
}

func TestUnwrapContent(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"a":1}`:                          `{"a":1}`,
		"```json\n{\"a\":1}\n```":          `{"a":1}`,
		"```JSON\n{\"a\":1}\n```":          `{"a":1}`,
		"```\n{\"a\":1}\n```":              `{"a":1}`,
		"```{\"a\":1}```":                  `{"a":1}`,
		"<think>x</think>{\"a\":1}":        `{"a":1}`,
		"<think>x</think>\n```json\n{}```": `{}`,
		"```json\n{\"a\":1}":               "```json\n{\"a\":1}", // unclosed fence: left alone, then rejected
		"<think>never closed {}":           "<think>never closed {}",
	}
	for in, want := range cases {
		if got := unwrapContent(in); got != want {
			t.Errorf("unwrapContent(%q) = %q, want %q", in, got, want)
		}
	}
}
