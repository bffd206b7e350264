// Package citation validates the citations of a text written from a task's
// evidence: seed 001's rule that "citations are not generated, they're
// validated". Given the text and the task's evidence numbers (E1, E2, …),
// Check reports the ids the text cites that the task has, those it does not
// have (with where they are), the task's ids left uncited, the coverage
// (cited ids of the task / all its ids) and the factual sentences that cite
// no id of the task. It is pure: no store, no I/O; the enqueue CLI's
// `cite check` reads the task's ids and the text and prints the Result.
//
// # Citation groups
//
// A citation group is `[E1]` or `[E1,E5,E9]`: a "[", one or more ids
// separated by commas, a "]". An id is an upper-case E and decimal digits.
// Spaces and tabs are allowed around the ids and commas ("[E1, E3]",
// "[ E7 ]"); a line break is not. Ids are compared as written: "E01" is not
// E1, so it is an id the task does not have, as is E99999999999999999999
// (no number is parsed, so no size overflows). Anything else that opens
// like a group — "[" and E and a digit, as in the ranges "[E1-E3]",
// "[E1;E2]" or "[E1 and E2]", or a group left open — is malformed: ranges
// are not expanded, since the ids a range covers are a guess; the check
// reports the malformed text where it is and counts it as a failure, as an
// invalid id is. A lower-case "[e1]" and a bare E1 outside brackets are not
// citations.
//
// # The sentence rule
//
// The text is cut into blocks: paragraphs (separated by blank lines), lines
// starting with "#" (headings) and list items (a line starting with "-",
// "*", "+", "•" or "1." / "1)" and a space; the marker is not part of the
// item). A paragraph's lines are joined, so hard-wrapped text reads as the
// writer meant. A block is cut into sentences after ".", "!" or "?" (and
// any closing quotes or brackets) followed by a space or the block's end,
// except after a "." that ends a known abbreviation ("e.g.", "Dr.",
// "et al.", "Fig.", …) or a capital letter alone (an initial), or that is
// followed by a lower-case word. Citation groups right after a sentence's
// end ("… rose. [E2] Next …") belong to that sentence.
//
// Every sentence is a factual sentence, one that needs a citation, except:
//   - a question (it ends with "?");
//   - a heading, or a title: a paragraph of one line (not a list item)
//     without ".", "!" or "?" at its end;
//   - a lead-in, ending with ":";
//   - a sentence of nothing but citations and punctuation (not counted as
//     a sentence at all);
//   - a transition or hedge: a sentence that opens with one of a fixed list
//     of words and phrases ("However", "In summary", "Overall", "Perhaps",
//     "This section", "More research", …) and carries no mark of a fact.
//
// The marks of a fact, the first of which the report names as the reason
// a sentence is factual (else "statement"), are: a digit (a number, a year,
// a percentage, a measure), a quantity word ("percent", "million", "twice",
// "half", …), a capitalised word that is not the sentence's first word (a
// named entity: "Alps", "NASA"; "I" does not count), and a verb of change,
// measurement, causation or report from a fixed list ("rose", "doubled",
// "causes", "led", "measured", "reported", …). A sentence is supported when
// one of its groups cites an id of the task; one that cites only ids the
// task does not have is as unsupported as one that cites none.
//
// The rule is lexical and deterministic: it decides nothing about meaning.
// Seed 001's own example sentences ("Transformers use attention", "They
// scale well") have no mark, which is why a statement needs none to be
// factual; the marks keep a fact that opens with "However" from passing as
// a transition.
//
// # Bounds
//
// A text may have at most MaxTextBytes bytes. Each list of the Result holds
// at most MaxReported entries (the counts are always complete and
// Truncated says a list was cut). An id longer than 24 bytes is reported
// clipped. Invalid UTF-8 is read a byte at a time (a column each) and a
// run of it is quoted as one U+FFFD; nothing in the text can make Check
// panic.
package citation

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/textclip"
)

// Bounds of a check.
const (
	// MaxTextBytes is the longest text Check reads: 1 MiB, some 150,000
	// words, far more than a report written from one task.
	MaxTextBytes = 1 << 20
	// MaxReported bounds each list of a Result.
	MaxReported = 500
	// maxIDBytes is the longest id reported as written; a longer one is
	// clipped.
	maxIDBytes = 24
	// maxSentenceRunes is the longest sentence quoted in a Result.
	maxSentenceRunes = 200
)

var (
	// ErrTooLarge: the text is longer than MaxTextBytes.
	ErrTooLarge = errors.New("text too large")
	// ErrBadEvidenceNo: a task evidence number that is not positive.
	ErrBadEvidenceNo = errors.New("evidence number must be positive")
)

// Position is where something is in the text.
type Position struct {
	Offset int `json:"offset"` // bytes from the start of the text
	Line   int `json:"line"`   // from 1
	Column int `json:"column"` // characters from 1; an invalid byte counts as one
}

// Ref is one cited id where the text cites it.
type Ref struct {
	ID string `json:"id"`
	Position
}

// Malformed is text that opens like a citation group and is not one.
type Malformed struct {
	Text string `json:"text"`
	Position
}

// Sentence is a factual sentence that cites no id of the task.
type Sentence struct {
	Text string `json:"text"` // whitespace collapsed, clipped to 200 characters
	Mark string `json:"mark"` // why it is factual: number, quantity, name, verb or statement
	Word string `json:"word"` // the word that is the mark; "" for statement
	Position
}

// Coverage is how many of the task's ids the text cites.
type Coverage struct {
	Cited    int     `json:"cited"`
	Total    int     `json:"total"`
	Fraction float64 `json:"fraction"` // Cited/Total; 0 when the task has no ids
	Text     string  `json:"text"`     // "5 of 15"
}

// Result is what Check found. Lists are in text order (occurrences) or id
// order (ids), each at most MaxReported long.
type Result struct {
	// OK: no id the task does not have, no malformed citation.
	OK bool `json:"ok"`
	// Groups counts the citation groups, malformed ones excluded.
	Groups int `json:"citation_groups"`
	// Cited are the task's ids the text cites, each once.
	Cited []string `json:"cited"`
	// InvalidIDs are the cited ids the task does not have, each once;
	// Invalid is every place one is cited and InvalidCount their number.
	InvalidIDs   []string `json:"invalid_ids"`
	Invalid      []Ref    `json:"invalid"`
	InvalidCount int      `json:"invalid_count"`
	// Malformed are the texts that open like a citation group and are not.
	Malformed      []Malformed `json:"malformed"`
	MalformedCount int         `json:"malformed_count"`
	// Uncited are the task's ids the text does not cite.
	Uncited  []string `json:"uncited"`
	Coverage Coverage `json:"coverage"`
	// Sentences counts the sentences (headings and titles included),
	// Factual those that need a citation; Unsupported are the factual ones
	// citing no id of the task.
	Sentences        int        `json:"sentences"`
	Factual          int        `json:"factual_sentences"`
	Unsupported      []Sentence `json:"unsupported"`
	UnsupportedCount int        `json:"unsupported_count"`
	// Truncated: a list above was cut at MaxReported.
	Truncated bool `json:"truncated"`
}

// ID is the id of evidence number n: "E17".
func ID(n int) string { return "E" + strconv.Itoa(n) }

// Check validates the citations of text against the task's evidence
// numbers (the n of each En; order and repeats do not matter).
func Check(text string, evidenceNos []int) (*Result, error) {
	if len(text) > MaxTextBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a check reads", ErrTooLarge, len(text), MaxTextBytes)
	}
	task := make(map[string]bool, len(evidenceNos))
	for _, n := range evidenceNos {
		if n <= 0 {
			return nil, fmt.Errorf("%w: %d", ErrBadEvidenceNo, n)
		}
		task[ID(n)] = true
	}
	r := &Result{Cited: []string{}, InvalidIDs: []string{}, Invalid: []Ref{}, Malformed: []Malformed{},
		Uncited: []string{}, Unsupported: []Sentence{}}
	groups := scanGroups(text)
	cited, invalid := map[string]bool{}, map[string]bool{}
	loc := locator{text: text}
	for _, g := range groups {
		if g.malformed {
			r.MalformedCount++
			if len(r.Malformed) < MaxReported {
				r.Malformed = append(r.Malformed, Malformed{Text: quote(text[g.start:g.end], maxIDBytes*2), Position: loc.at(g.start)})
			}
			continue
		}
		r.Groups++
		for _, id := range g.ids {
			s := text[id.start:id.end]
			if task[s] {
				cited[s] = true
				continue
			}
			invalid[s] = true
			r.InvalidCount++
			if len(r.Invalid) < MaxReported {
				r.Invalid = append(r.Invalid, Ref{ID: quote(s, maxIDBytes), Position: loc.at(id.start)})
			}
		}
	}
	r.OK = r.InvalidCount == 0 && r.MalformedCount == 0
	r.Cited = r.sortedIDs(cited)
	r.InvalidIDs = r.sortedIDs(invalid)
	uncited := map[string]bool{}
	for id := range task {
		if !cited[id] {
			uncited[id] = true
		}
	}
	r.Uncited = r.sortedIDs(uncited)
	r.Coverage = Coverage{Cited: len(cited), Total: len(task), Text: fmt.Sprintf("%d of %d", len(cited), len(task))}
	if len(task) > 0 {
		r.Coverage.Fraction = float64(len(cited)) / float64(len(task))
	}
	r.checkSentences(text, groups, task)
	r.Truncated = r.Truncated || len(r.Invalid) < r.InvalidCount || len(r.Malformed) < r.MalformedCount ||
		len(r.Unsupported) < r.UnsupportedCount
	return r, nil
}

// checkSentences counts the sentences and factual sentences of text and
// lists the factual ones that cite no id of the task.
func (r *Result) checkSentences(text string, groups []group, task map[string]bool) {
	loc := locator{text: text}
	for _, s := range sentences(text, groups) {
		r.Sentences++
		if !s.factual {
			continue
		}
		r.Factual++
		if s.supported(text, task) {
			continue
		}
		r.UnsupportedCount++
		if len(r.Unsupported) < MaxReported {
			r.Unsupported = append(r.Unsupported, Sentence{Text: quote(strings.Join(strings.Fields(text[s.start:s.end]), " "), maxSentenceRunes),
				Mark: s.mark, Word: quote(s.word, maxIDBytes), Position: loc.at(s.start)})
		}
	}
}

// sortedIDs lists the ids of set in id order, clipped for the report, at
// most MaxReported of them.
func (r *Result) sortedIDs(set map[string]bool) []string {
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareIDs)
	if len(ids) > MaxReported {
		ids, r.Truncated = ids[:MaxReported], true
	}
	for i, id := range ids {
		ids[i] = quote(id, maxIDBytes)
	}
	return ids
}

// compareIDs orders ids as written ("E" and digits) by their number, which
// is never parsed: fewer significant digits first, then digit by digit,
// then (E1 before E01) the shorter spelling.
func compareIDs(a, b string) int {
	sa, sb := strings.TrimLeft(a[1:], "0"), strings.TrimLeft(b[1:], "0")
	if len(sa) != len(sb) {
		return len(sa) - len(sb)
	}
	if c := strings.Compare(sa, sb); c != 0 {
		return c
	}
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// quote makes outside text safe to report: valid UTF-8 (a run of bad bytes
// becomes one U+FFFD) of at most n characters.
func quote(s string, n int) string {
	return strings.ToValidUTF8(textclip.Runes(s, n), "\uFFFD")
}

// locator turns byte offsets into lines and columns. Asked in increasing
// order, as a list of the Result is built, it reads the text once.
type locator struct {
	text           string
	off, line, col int // the last position found
	started        bool
}

func (l *locator) at(off int) Position {
	if !l.started || off < l.off {
		l.off, l.line, l.col, l.started = 0, 1, 1, true
	}
	for l.off < off && l.off < len(l.text) {
		r, w := utf8.DecodeRuneInString(l.text[l.off:])
		if r == '\n' {
			l.line, l.col = l.line+1, 1
		} else {
			l.col++
		}
		l.off += w
	}
	return Position{Offset: off, Line: l.line, Column: l.col}
}
