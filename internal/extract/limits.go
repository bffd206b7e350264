package extract

import (
	"bytes"
	"errors"
	"fmt"

	"golang.org/x/net/html"
)

// ErrTooManyElements is returned for a page over a limit of what parsing it
// may build (see Limits and FromHTMLWithLimits): more start tags than the
// cap, a tree the parser would build with more nodes than the budget, a tag
// with too many attributes, or text the parser would copy too often.
// Parsing it into a tree and running readability would take memory or time
// in proportion (a 5 MiB flood of <p>a.</p> peaks near 500 MiB of heap).
// Its text is the target failure reason, followed by the figures.
var ErrTooManyElements = errors.New("too_many_elements")

// CheckElements counts the start tags of body with a streaming tokenizer,
// which holds no tree, and returns an error wrapping ErrTooManyElements as
// soon as the count passes max (max ≤ 0: no cap). It checks nothing else:
// FromHTMLWithLimits checks the tags, what the parser would build of them
// and the size of each tag.
func CheckElements(body []byte, max int) error {
	if max <= 0 {
		return nil
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil // EOF, or malformed input left to the parser
		case html.StartTagToken, html.SelfClosingTagToken:
			n++
			if n > max {
				return fmt.Errorf("%w: more than %s start tags", ErrTooManyElements, thousands(int64(max)))
			}
		}
	}
}
