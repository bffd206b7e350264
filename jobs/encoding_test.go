package jobs_test

import (
	"errors"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestCheckJSONTextNamesTheString: every string of a document, keys and
// values at any depth, is checked as written, not as encoding/json decodes
// it (U+FFFD for both problems), and the refusal names its path.
func TestCheckJSONTextNamesTheString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc, field string
		want             error // nil: accepted
	}{
		{"ascii", `{"claims":["a","b"]}`, "", nil},
		{"UTF-8", `{"claims":["glaciers — 氷河 🧊"]}`, "", nil},
		{"surrogate pair", `{"claims":["\ud83e\uddca", "\uD83E\uDDCA"]}`, "", nil},
		{"U+FFFD written", "{\"claims\":[\"\\ufffd \uFFFD\"]}", "", nil},
		{"escaped backslash before ud800", `{"claims":["C:\\ud800"]}`, "", nil},
		{"numbers and literals", `{"a":[1e999,-0.5,true,false,null],"b":{"c":{}}}`, "", nil},
		{"malformed: left to the decoder", "{\"a\":\"\xff", "", nil},
		{"malformed escape", `{"a":"\u12"}`, "", nil},
		{"malformed escape after a high surrogate", `{"a":"\ud800\u12"}`, "", nil},
		{"bytes outside strings", "{\"a\":\xff}", "", nil},

		{"invalid byte", "{\"claims\":[\"a\",\"b\",\"sea \xff ice\"]}", "claims[2]", jobs.ErrInvalidUTF8},
		{"truncated sequence", "{\"hypothesis\":\"\xe2\x82\"}", "hypothesis", jobs.ErrInvalidUTF8},
		{"encoded surrogate", "{\"hypothesis\":\"\xed\xa0\x80\"}", "hypothesis", jobs.ErrInvalidUTF8},
		{"high surrogate alone", `{"hypothesis":"sea \ud800 ice"}`, "hypothesis", jobs.ErrLoneSurrogate},
		{"high surrogate at the end", `{"hypothesis":"sea ice\uD800"}`, "hypothesis", jobs.ErrLoneSurrogate},
		{"high surrogate before another escape", `{"hypothesis":"\ud800\n"}`, "hypothesis", jobs.ErrLoneSurrogate},
		{"two high surrogates", `{"hypothesis":"\ud800\ud800"}`, "hypothesis", jobs.ErrLoneSurrogate},
		{"low surrogate first", `{"hypothesis":"\udc00\ud800"}`, "hypothesis", jobs.ErrLoneSurrogate},
		{"nested", `{"targets":[{"kind":"url","value":"x"},{"kind":"query","value":"\udfff"}]}`, "targets[1].value", jobs.ErrLoneSurrogate},
		{"after numbers and objects", `{"a":1,"b":{"c":[1,{}]},"d":[[],["x","\udfff"]]}`, "d[1][1]", jobs.ErrLoneSurrogate},
		{"a key", "{\"claims\":[{\"te\xffxt\":\"a\"}]}", "a key of claims[0]", jobs.ErrInvalidUTF8},
		{"a top-level key", `{"\ud800":1}`, "a key", jobs.ErrLoneSurrogate},
		{"one string", `"\ud800"`, "the document", jobs.ErrLoneSurrogate},
	}
	for _, c := range cases {
		err := jobs.CheckJSONText([]byte(c.doc))
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want accepted", c.name, err)
			}
			continue
		}
		var te *jobs.TextError
		if !errors.As(err, &te) || te.Field != c.field || !errors.Is(err, c.want) || !errors.Is(err, errs.ErrBadInput) {
			t.Errorf("%s: %v (%#v), want %s: %v, a bad input", c.name, err, te, c.field, c.want)
			continue
		}
		if got, want := err.Error(), c.field+": "+c.want.Error(); got != want {
			t.Errorf("%s: %q, want %q", c.name, got, want)
		}
	}
}

// TestCheckUTF8 refuses invalid UTF-8 naming the field.
func TestCheckUTF8(t *testing.T) {
	t.Parallel()
	if err := jobs.CheckUTF8("--text #1", "glaciers — 氷河"); err != nil {
		t.Errorf("valid text: %v", err)
	}
	err := jobs.CheckUTF8("--text #2", "sea \xff ice")
	if !errors.Is(err, jobs.ErrInvalidUTF8) || err.Error() != "--text #2: invalid UTF-8" {
		t.Errorf("invalid text: %v", err)
	}
}

// BenchmarkCheckJSONText: a 1 MiB body of claims, in UTF-8 (one pass) and
// with every non-ASCII character escaped as Python's json.dumps writes it
// (surrogate pairs: the path-tracking pass).
func BenchmarkCheckJSONText(b *testing.B) {
	for _, bc := range []struct{ name, claim string }{
		{"utf8", `"Sea ice 🧊 retreats — fast."`},
		{"escaped", `"Sea ice \ud83e\uddca retreats \u2014 fast."`},
	} {
		doc := []byte(`{"claims":[` + bc.claim)
		for len(doc) < 1<<20 {
			doc = append(doc, ',')
			doc = append(doc, bc.claim...)
		}
		doc = append(doc, "]}"...)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if err := jobs.CheckJSONText(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
