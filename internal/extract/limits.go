package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/html"
)

// ErrTooManyElements is returned by CheckElements for a page whose element
// count is over the cap: parsing it into a tree and running readability
// would take memory in proportion (a 5 MiB flood of <p>a.</p> peaks near
// 500 MiB of heap).
var ErrTooManyElements = errors.New("extract: too many HTML elements")

// CheckElements counts the start tags of body with a streaming tokenizer,
// which holds no tree, and returns an error wrapping ErrTooManyElements as
// soon as the count passes max (max ≤ 0: no cap).
func CheckElements(body []byte, max int) error {
	if max <= 0 {
		return nil
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return nil // malformed input is the parser's to judge
		case html.StartTagToken, html.SelfClosingTagToken:
			n++
			if n > max {
				return fmt.Errorf("%w: more than %d", ErrTooManyElements, max)
			}
		}
	}
}
