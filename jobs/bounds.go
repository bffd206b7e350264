package jobs

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
)

// Bounds of the contract. Everything another service puts into a job, and
// everything a user gives the enqueue CLI, is held to them at the door; past
// a bound the input is refused with an error naming the field and the limit
// (a job so refused is cancelled on its first attempt, never retried).
const (
	// MaxArgsBytes bounds a job's encoded args; the largest legal args (an
	// embed job of MaxEmbedFragments ids) take about 200 KB.
	MaxArgsBytes = 1 << 20
	// MaxURLBytes bounds a URL target (and every URL a fetch follows): what
	// a btree index takes, far above any real URL.
	MaxURLBytes = ident.MaxURLBytes
	// MaxQueryRunes bounds a search query target.
	MaxQueryRunes = 500
	// MaxTargetDepth bounds search and citation hops from a task's own targets.
	MaxTargetDepth = 100
	// MaxSearchResults bounds the result URLs one query target registers.
	MaxSearchResults = 100
	// MaxTextRunes bounds a claim's text, a task's hypothesis and a rerank
	// query: a claim is a statement, not a document. Postgres indexes text
	// of this size with room to spare (to_tsvector refuses past 1 MB).
	MaxTextRunes = 2000
	// MaxClaimIDs bounds the claims one verify_nli job names.
	MaxClaimIDs = 10000
	// maxEchoBytes bounds what an error message repeats of the input.
	maxEchoBytes = 200
)

// CheckText reports the first problem that keeps s from being a claim, a
// hypothesis or a query: invalid UTF-8, a control character other than
// whitespace (a NUL among them: Postgres text cannot hold it), or more than
// maxRunes characters (≤ 0: no length bound). The error names the limit.
func CheckText(s string, maxRunes int) error {
	if err := checkText(s); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s); maxRunes > 0 && n > maxRunes {
		return fmt.Errorf("is %d characters long, more than the %d allowed", n, maxRunes)
	}
	return nil
}

// checkText refuses invalid UTF-8 and control characters other than
// whitespace.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return fmt.Errorf("has control character %U", r)
		}
	}
	return nil
}

// clip shortens s for an error message.
func clip(s string, n int) string { return textclip.Bytes(s, n) }
