package httpx

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// SqueezeSpace returns a reader of r's JSON text with every run of white
// space outside strings cut to one space: the same JSON, whose padding and
// indentation cost a decoder no buffer. Runs are kept as one space rather
// than dropped, so "[1 2]" stays invalid.
func SqueezeSpace(r io.Reader) io.Reader { return &squeezer{r: r} }

// squeezer is SqueezeSpace's reader.
type squeezer struct {
	r                       io.Reader
	inString, escaped, last bool // last: the previous byte kept was white space
}

// Read implements io.Reader.
func (s *squeezer) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		j := 0
		for _, c := range p[:n] {
			switch {
			case s.inString:
				switch {
				case s.escaped:
					s.escaped = false
				case c == '\\':
					s.escaped = true
				case c == '"':
					s.inString = false
				}
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if s.last {
					continue
				}
				s.last = true
				p[j] = ' '
				j++
				continue
			case c == '"':
				s.inString = true
			}
			s.last = false
			p[j] = c
			j++
		}
		if j > 0 || err != nil || n == 0 {
			return j, err
		}
	}
}

// errNull is the decoding error of an answer that is JSON null.
var errNull = errors.New("the answer is JSON null")

// DecodeJSON decodes the single JSON value r holds into out, refusing JSON
// null and anything after the value. It reads r as a stream: a top-level
// array decoded into a slice, and every array-valued field of a top-level
// object decoded into a plain struct (json tags, no embedded fields), are
// decoded one element at a time, so the raw text of a list is never held
// whole beside its decoded elements, and such a list longer than b.Items
// (when set) fails with a *TooLargeError. Any other value is buffered whole
// by encoding/json before it is decoded. r bounds the bytes
// (NewBoundedReader); b only names them. Errors of r come back wrapped.
func DecodeJSON(r io.Reader, b Bound, out any) error {
	br := bufio.NewReader(SqueezeSpace(r))
	first := peekValue(br)
	lim := &itemLimiter{r: br, b: b}
	d := &streamDecoder{Decoder: json.NewDecoder(lim), b: b, lim: lim}
	dec := d.Decoder
	var err error
	if s, ok := streamTarget(out, reflect.Slice); ok && first == '[' {
		err = d.decodeArray(s)
	} else if v, ok := streamTarget(out, reflect.Struct); ok && first == '{' {
		err = d.decodeObject(v)
	} else {
		err = dec.Decode(out)
	}
	if err != nil {
		return err
	}
	if first == 'n' { // decoded without error: the value was null
		return errNull
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("another value follows")
		}
		return fmt.Errorf("after the JSON value: %w", err)
	}
	return nil
}

// peekValue skips white space and returns the first byte of the value
// without consuming it, or 0 when there is none (the decoder then reports
// why).
func peekValue(br *bufio.Reader) byte {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r':
			_, _ = br.ReadByte()
			continue
		}
		return b[0]
	}
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// streamable reports whether values of t can be decoded piecewise: a slice
// (not of bytes) or a plain struct, that does not decode itself.
func streamable(t reflect.Type) bool {
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous || (f.IsExported() && strings.Contains(f.Tag.Get("json"), ",string")) {
				return false
			}
		}
		return true
	}
	return false
}

// streamTarget returns the value of kind out points to, when it can be
// decoded piecewise.
func streamTarget(out any, kind reflect.Kind) (reflect.Value, bool) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != kind || !streamable(v.Elem().Type()) {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// streamDecoder decodes lists one element at a time, at most b.Items each
// and each element at most b.ItemBytes.
type streamDecoder struct {
	*json.Decoder
	b   Bound
	lim *itemLimiter
}

// itemLimiter is the decoder's reader: while an element is decoded it hands
// out no byte past the element's allowance (end), so an element over
// Bound.ItemBytes fails before the decoder buffers more of it.
type itemLimiter struct {
	r   io.Reader
	b   Bound
	n   int64 // bytes handed to the decoder, its InputOffset's scale
	end int64 // 0: no element being decoded
}

// Read implements io.Reader.
func (l *itemLimiter) Read(p []byte) (int, error) {
	if l.end > 0 {
		left := l.end - l.n
		if left <= 0 {
			return 0, &TooLargeError{Bound: l.b, Item: true}
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// decodeArray decodes a JSON array, whose '[' is next, into the slice s.
func (dec *streamDecoder) decodeArray(s reflect.Value) error {
	if _, err := dec.Token(); err != nil {
		return err
	}
	out, err := dec.decodeElements(s.Type())
	if err != nil {
		return err
	}
	s.Set(out)
	return nil
}

// decodeElements decodes the elements of an array whose '[' was read into a
// new slice of type t, one element at a time, and reads its ']'.
func (dec *streamDecoder) decodeElements(t reflect.Type) (reflect.Value, error) {
	out := reflect.MakeSlice(t, 0, 0)
	for i := 0; dec.More(); i++ {
		if dec.b.Items > 0 && i == dec.b.Items {
			return out, &TooLargeError{Bound: dec.b, Items: true}
		}
		e := reflect.New(t.Elem())
		if dec.b.ItemBytes > 0 {
			// Room for the element from where the decoder stands: the
			// comma and space before it, the byte after it (a number ends
			// there).
			dec.lim.end = dec.InputOffset() + dec.b.ItemBytes + 4
		}
		err := dec.Decode(e.Interface())
		dec.lim.end = 0
		if err != nil {
			return out, fmt.Errorf("element %d: %w", i, err)
		}
		out = reflect.Append(out, e.Elem())
	}
	_, err := dec.Token() // ']'
	return out, err
}

// decodeObject decodes a JSON object, whose '{' is next, into the struct v
// field by field as encoding/json matches them (the json tag's name, else
// the field's; exactly, else ignoring case); array-valued fields of slice
// type (or pointer to slice) one element at a time. Unknown keys are
// skipped.
func (dec *streamDecoder) decodeObject(v reflect.Value) error {
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		f, ok := fieldFor(v.Type(), key)
		if !ok {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := dec.decodeField(v.Field(f)); err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// decodeField decodes the next value into the field fv, streaming it when
// it is a slice or a pointer to one. Such a field takes an array or null;
// anything else is an error.
func (dec *streamDecoder) decodeField(fv reflect.Value) error {
	t := fv.Type()
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	if t.Kind() != reflect.Slice || !streamable(t) {
		return dec.Decode(fv.Addr().Interface())
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		fv.SetZero()
		return nil
	case json.Delim('['):
	default:
		return fmt.Errorf("json: cannot unmarshal %v into a field of type %s", tok, fv.Type())
	}
	out, err := dec.decodeElements(t)
	if err != nil {
		return err
	}
	if ptr {
		p := reflect.New(t)
		p.Elem().Set(out)
		out = p
	}
	fv.Set(out)
	return nil
}

// fieldFor returns the index of t's exported field that JSON key names.
func fieldFor(t reflect.Type, key string) (int, bool) {
	fold := -1
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "":
			name = f.Name
		}
		if name == key {
			return i, true
		}
		if fold < 0 && strings.EqualFold(name, key) {
			fold = i
		}
	}
	return fold, fold >= 0
}
