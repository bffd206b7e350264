package taskindex

import (
	"fmt"
	"strings"
)

// ParseTSVector reads Postgres's text output of a tsvector ('lexeme':1,4B
// 'other' …): each lexeme once, in order, with its number of positions (1
// when it has none, as in a stripped tsvector). In the output a quote inside
// a lexeme is doubled and a backslash is escaped with a backslash.
func ParseTSVector(s string) (lexemes []string, counts []int32, err error) {
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i == len(s) {
			return lexemes, counts, nil
		}
		if s[i] != '\'' {
			return nil, nil, fmt.Errorf("tsvector: want a quoted lexeme at byte %d of %q", i, s)
		}
		i++
		var b strings.Builder
		closed := false
		for i < len(s) && !closed {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				b.WriteByte(s[i+1])
				i += 2
			case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
				b.WriteByte('\'')
				i += 2
			case c == '\'':
				closed = true
				i++
			default:
				b.WriteByte(c)
				i++
			}
		}
		if !closed {
			return nil, nil, fmt.Errorf("tsvector: unterminated lexeme in %q", s)
		}
		n := int32(1)
		if i < len(s) && s[i] == ':' {
			i++
			n = 0
			for {
				start := i
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
				}
				if i == start {
					return nil, nil, fmt.Errorf("tsvector: bad position at byte %d of %q", i, s)
				}
				if i < len(s) && s[i] >= 'A' && s[i] <= 'D' { // weight
					i++
				}
				n++
				if i < len(s) && s[i] == ',' {
					i++
					continue
				}
				break
			}
		}
		lexemes = append(lexemes, b.String())
		counts = append(counts, n)
	}
}
