package retrieval

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/evidencefleet/evidencefleet/internal/stopwords"
)

// Heuristic signals of a claim's text. They are heuristics, not models:
// each counts surface marks (stated below) and is documented as such
// wherever a decision shows it.

var (
	// numberRe finds numbers as written: 1.1, 1,500, 21 %, 3.5%, −2.
	numberRe = regexp.MustCompile(`[-−]?\d+(?:[.,]\d+)*\s?%?`)
	// yearRe finds years 1000–2099.
	yearRe = regexp.MustCompile(`\b(1\d{3}|20\d{2})s?\b`)
	// monthRe finds month names (dates).
	monthRe = regexp.MustCompile(`(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december)\b`)
	// comparativeRe finds comparisons and changes.
	comparativeRe = regexp.MustCompile(`(?i)\b(more|less|fewer|most|least|higher|lower|highest|lowest|larger|smaller|largest|smallest|greater|greatest|increase[sd]?|increasing|decrease[sd]?|decreasing|rise[sn]?|rising|rose|grew|grow(?:s|n|ing)?|fall(?:s|en|ing)?|doubled?|tripled?|accelerat\w*|faster|slower|\w+er than)\b`)
	// harmRe finds health and safety terms.
	harmRe = regexp.MustCompile(`(?i)\b(health|disease\w*|death\w*|deaths|die[sd]?|dying|mortality|cancer\w*|vaccin\w*|virus\w*|infect\w*|pandemic|epidemic|drug\w*|medic\w*|cure[sd]?|treatment\w*|toxic\w*|poison\w*|pollut\w*|safety|unsafe|danger\w*|hazard\w*|injur\w*|emergenc\w*|famine|flood\w*|drought\w*|heat ?waves?|wildfires?|hurricanes?|storms?|earthquakes?|radiation|nuclear|contaminat\w*|outbreak\w*|suicide|overdose\w*|child(?:ren)?)\b`)
)

// Worthiness is the claim's check-worthiness in [0.2, 1], a heuristic:
// 0.2, plus 0.2 for each kind of checkable mark it has — a number, a year
// or date, a named entity (a capitalised word that does not open the
// sentence), a comparison or change (more, highest, increased, …).
func Worthiness(claim string) float64 {
	w := 0.2
	for _, has := range []bool{hasNumber(claim), yearRe.MatchString(claim) || monthRe.MatchString(claim),
		len(entities(claim)) > 0, comparativeRe.MatchString(claim)} {
		if has {
			w += 0.2
		}
	}
	return w
}

// Harm is the claim's harm proxy, a heuristic: 1 when it names a health or
// safety matter (disease, death, vaccines, toxins, disasters, children, …),
// else 0.
func Harm(claim string) float64 {
	if harmRe.MatchString(claim) {
		return 1
	}
	return 0
}

func hasNumber(s string) bool {
	for _, m := range numberRe.FindAllString(s, -1) {
		if !yearRe.MatchString(m) {
			return true
		}
	}
	return false
}

// Constraints are the numbers and dates a claim states (years, month
// names, numbers as written), normalised: a supporting fragment must state
// them too, or they are missing (MissingConstraints).
func Constraints(claim string) []string {
	var out []string
	add := func(s string) {
		s = strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "−", "-")), ""))
		s = strings.TrimSuffix(s, "s")
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, m := range yearRe.FindAllString(claim, -1) {
		add(m)
	}
	for _, m := range monthRe.FindAllString(claim, -1) {
		add(m)
	}
	for _, m := range numberRe.FindAllString(claim, -1) {
		if !yearRe.MatchString(m) {
			add(m)
		}
	}
	return out
}

// MissingConstraints counts the claim's constraints found in none of the
// supporting fragments' texts.
func MissingConstraints(claim string, supporting []string) int {
	var found []string
	for _, f := range supporting {
		found = append(found, Constraints(f)...)
	}
	missing := 0
	for _, c := range Constraints(claim) {
		if !slices.Contains(found, c) {
			missing++
		}
	}
	return missing
}

// words splits text into words: letters and digits, keeping a decimal
// point or thousands comma inside a number and a % after one.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == ',' || r == '%' || r == '-' || r == '\'')
	})
}

// clean trims a word's punctuation ends.
func clean(w string) string {
	return strings.Trim(w, ".,'-")
}

// entities are the capitalised words of two or more letters that do not
// open a sentence, and all-capital acronyms, in order, once each.
func entities(text string) []string {
	var out []string
	start := true
	for _, raw := range words(text) {
		w := clean(raw)
		r := []rune(w)
		if len(r) < 2 {
			start = strings.HasSuffix(raw, ".") && !hasDigit(raw)
			continue
		}
		acronym := len(r) > 1 && strings.ToUpper(w) == w && unicode.IsLetter(r[0])
		if (acronym || unicode.IsUpper(r[0]) && !start) && !stopwords.Is(strings.ToLower(w)) && !slices.Contains(out, w) {
			out = append(out, w)
		}
		start = strings.HasSuffix(raw, ".") && !hasDigit(raw)
	}
	return out
}

func hasDigit(s string) bool {
	return strings.ContainsFunc(s, unicode.IsDigit)
}

// keyTerms are the claim's content words (no function words), lower-cased
// except entities, in order, once each.
func keyTerms(text string) []string {
	var out []string
	ents := entities(text)
	for _, raw := range words(text) {
		w := clean(raw)
		if w == "" {
			continue
		}
		if !slices.Contains(ents, w) {
			w = strings.ToLower(w)
		}
		if stopwords.Is(strings.ToLower(w)) || len([]rune(w)) < 2 && !hasDigit(w) || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}
