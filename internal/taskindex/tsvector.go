package taskindex

import "fmt"

// ParseTSVector reads Postgres's text output of a tsvector ('lexeme':1,4B
// 'other' …): each lexeme once, in order, with its number of positions (1
// when it has none, as in a stripped tsvector). In the output a quote inside
// a lexeme is doubled and a backslash is escaped with a backslash.
func ParseTSVector(s string) (lexemes []string, counts []int32, err error) {
	_, err = scanTSVector([]byte(s), nil, func(lex []byte, n int32) {
		lexemes = append(lexemes, string(lex))
		counts = append(counts, n)
	})
	if err != nil {
		return nil, nil, err
	}
	return lexemes, counts, nil
}

// scanTSVector calls fn for each lexeme of s (see ParseTSVector) with its
// number of positions. The lexeme passed to fn is only valid during the call:
// it is s itself or buf, which is returned for reuse.
func scanTSVector(s, buf []byte, fn func(lexeme []byte, positions int32)) ([]byte, error) {
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i == len(s) {
			return buf, nil
		}
		if s[i] != '\'' {
			return buf, fmt.Errorf("tsvector: want a quoted lexeme at byte %d of %q", i, s)
		}
		i++
		buf = buf[:0]
		closed := false
		for i < len(s) && !closed {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				buf = append(buf, s[i+1])
				i += 2
			case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
				buf = append(buf, '\'')
				i += 2
			case c == '\'':
				closed = true
				i++
			default:
				buf = append(buf, c)
				i++
			}
		}
		if !closed {
			return buf, fmt.Errorf("tsvector: unterminated lexeme in %q", s)
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
					return buf, fmt.Errorf("tsvector: bad position at byte %d of %q", i, s)
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
		fn(buf, n)
	}
}
