// Stemming.

package builtin

import "strings"

// stem strips common English inflections: irregular forms map to their
// base (a form listed with itself is kept as is), then plural/3rd-person
// "s", "ing", "ed", "ly", a doubled final consonant and a final "e" are
// removed ("riding", "rides", "ride" → "rid").
func stem(w string) string {
	if b, ok := irregularForms[w]; ok {
		if b == w {
			return w
		}
		w = b
		if b2, ok := irregularForms[w]; ok && b2 == w {
			return w
		}
	}
	return stemRegular(w)
}

// stemRegular is stem for a word that is not an irregular form.
func stemRegular(w string) string {
	if len(w) <= 3 || !isASCIILetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	stripped := false
	switch {
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]) && len(w) >= 6:
		w, stripped = w[:len(w)-3], true
	case strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && hasVowel(w[:len(w)-2]) && len(w) >= 5:
		w, stripped = w[:len(w)-2], true
	case strings.HasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if stripped && len(w) >= 3 {
		a, b := w[len(w)-1], w[len(w)-2]
		if a == b && !isVowel(a) && a != 'l' && a != 's' && a != 'z' {
			w = w[:len(w)-1]
		}
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) || s[i] == 'y' {
			return true
		}
	}
	return false
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
