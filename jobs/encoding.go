package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// Text every door refuses for its encoding — the API, the enqueue CLI, the
// MCP tools and job args — rather than store U+FFFD in its place, which is
// what encoding/json makes of both when it decodes a string.
var (
	// ErrInvalidUTF8: bytes that are not UTF-8 (an encoded surrogate,
	// ED A0 80, among them).
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrLoneSurrogate: a JSON \u escape of half a UTF-16 surrogate pair
	// (\ud800 alone, or \udc00 first), which encodes no character.
	ErrLoneSurrogate = errors.New("lone surrogate")
)

// TextError is text refused for its encoding, with where it was.
type TextError struct {
	// Field is where the text was: a JSON path (claims[2].text), a flag, a
	// file line.
	Field string
	Err   error // ErrInvalidUTF8 or ErrLoneSurrogate
}

// Error is "field: problem", the field clipped.
func (e *TextError) Error() string { return clip(e.Field, maxEchoBytes) + ": " + e.Err.Error() }

// Unwrap makes a TextError its problem and an errs.ErrBadInput (a usage
// error of the CLI, a 400 of the API, a job cancelled once).
func (e *TextError) Unwrap() []error { return []error{e.Err, errs.ErrBadInput} }

// CheckUTF8 refuses s, named field, unless it is valid UTF-8.
func CheckUTF8(field, s string) error {
	if !utf8.ValidString(s) {
		return &TextError{Field: field, Err: ErrInvalidUTF8}
	}
	return nil
}

// CheckJSONText reports the first string of the JSON document data, a key
// or a value, that is not valid UTF-8 or holds a lone surrogate escape, as
// a *TextError naming it by its path: claims[2].text, target.value; a key
// as "a key of claims[2]"; a document that is one string as "the
// document". Malformed JSON is left to the decoder that reads data after
// it (nil here). A document it accepts costs one pass over its bytes; only
// a refusal walks the document's tokens to name the string.
func CheckJSONText(data []byte) error {
	if !hasBadString(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		array     bool
		index     int    // the next element of an array
		key       string // the current member of an object
		expectKey bool
	}
	var stack []frame
	path := func() string {
		var b []byte
		for _, f := range stack {
			if f.expectKey {
				break // the innermost object, between members
			}
			if f.array {
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(f.index), 10)
				b = append(b, ']')
				continue
			}
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, f.key...)
		}
		return string(b)
	}
	// valueDone moves the innermost container past the value just read.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].expectKey = true
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or malformed: the decoder after this says so
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, frame{expectKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			raw := data[start:dec.InputOffset()]
			raw = raw[bytes.IndexByte(raw, '"'):]
			isKey := len(stack) > 0 && !stack[len(stack)-1].array && stack[len(stack)-1].expectKey
			if problem := rawStringProblem(raw); problem != nil {
				field := path()
				switch {
				case isKey && field == "":
					field = "a key"
				case isKey:
					field = "a key of " + field
				case field == "":
					field = "the document"
				}
				return &TextError{Field: field, Err: problem}
			}
			if isKey {
				stack[len(stack)-1].key = tok
				stack[len(stack)-1].expectKey = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// hasBadString reports whether a string of data, as written, is not valid
// UTF-8 or holds a lone surrogate escape: one pass, no allocation. What is
// not a string is not looked at (a byte there that is not UTF-8 is a
// syntax error the decoder reports).
func hasBadString(data []byte) bool {
	for {
		i := bytes.IndexByte(data, '"')
		if i < 0 {
			return false
		}
		end := stringEnd(data[i+1:])
		if end < 0 {
			return false // unterminated: malformed
		}
		n := i + 1 + end + 1
		if rawStringProblem(data[i:n]) != nil {
			return true
		}
		data = data[n:]
	}
}

// stringEnd is the index in s of the quote that closes a string opened
// just before s, or -1.
func stringEnd(s []byte) int {
	for j := 0; j < len(s); {
		k := bytes.IndexAny(s[j:], `"\`)
		if k < 0 {
			return -1
		}
		j += k
		if s[j] == '"' {
			return j
		}
		j += 2
	}
	return -1
}

// rawStringProblem checks a JSON string as written, quotes included:
// ErrInvalidUTF8, ErrLoneSurrogate or nil (a malformed escape is the
// decoder's to report).
func rawStringProblem(raw []byte) error {
	for i := 1; i < len(raw)-1; {
		c := raw[i]
		switch {
		case c == '\\' && raw[i+1] == 'u':
			if i+6 > len(raw)-1 {
				return nil
			}
			r := hex4(raw[i+2 : i+6])
			i += 6
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return ErrLoneSurrogate
			case r >= 0xD800 && r <= 0xDBFF:
				if i+6 > len(raw)-1 || raw[i] != '\\' || raw[i+1] != 'u' {
					return ErrLoneSurrogate
				}
				if low := hex4(raw[i+2 : i+6]); low < 0xDC00 || low > 0xDFFF {
					return ErrLoneSurrogate
				}
				i += 6
			}
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				return ErrInvalidUTF8
			}
			i += size
		}
	}
	return nil
}

// hex4 is the value of four hex digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
