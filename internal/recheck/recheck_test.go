package recheck_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/recheck"
)

// cited is a cited version's text; its span is the sentence about the
// glacier, after non-ASCII text so that byte and rune offsets differ.
const cited = "Über die Gletscher — a survey. The glacier lost 12 percent of its mass between 2000 and 2020. " +
	"Measurements came from satellite gravimetry and field stakes. Other regions were not studied."

const citedSentence = "The glacier lost 12 percent of its mass between 2000 and 2020."

func spanOf(t *testing.T, text, part string) recheck.Span {
	t.Helper()
	i := strings.Index(text, part)
	if i < 0 {
		t.Fatalf("%q not in %q", part, text)
	}
	s := len([]rune(text[:i]))
	return recheck.Span{Start: s, End: s + len([]rune(part))}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	rs := []rune(cited)
	span := spanOf(t, cited, citedSentence)
	edited := strings.Replace(cited, "12 percent", "9 percent", 1)
	for _, tc := range []struct {
		name       string
		seen       recheck.Seen
		want       recheck.State
		found      string // the text Found spans, "" for none
		aroundHas  string // a part of the text Around spans, "" for no Around
		aroundLack string // what Around must not hold
	}{
		{name: "same text", seen: recheck.Seen{Outcome: recheck.Unchanged, Text: cited}, want: recheck.Unchanged, found: citedSentence},
		{name: "whitespace and quotes changed, markup gone with the extraction",
			seen: recheck.Seen{Outcome: recheck.Unchanged, Text: "Updated 2024.\n\nThe glacier   lost 12 percent\nof its mass between 2000 and 2020.\nMore."},
			want: recheck.Unchanged, found: "The glacier   lost 12 percent\nof its mass between 2000 and 2020."},
		{name: "the rest of the page edited", seen: recheck.Seen{Outcome: recheck.Unchanged, Text: "New intro. " + citedSentence + " New outro."},
			want: recheck.Unchanged, found: citedSentence},
		{name: "the cited sentence edited", seen: recheck.Seen{Outcome: recheck.Unchanged, Text: edited},
			want: recheck.Edited, aroundHas: "9 percent", aroundLack: "survey"},
		{name: "edited, and the text after it gone",
			seen: recheck.Seen{Outcome: recheck.Unchanged, Text: "Über die Gletscher — a survey. The glacier grew."},
			want: recheck.Edited, aroundHas: "The glacier grew"},
		{name: "edited beyond recognition", seen: recheck.Seen{Outcome: recheck.Unchanged, Text: "Nothing of it is left."},
			want: recheck.Edited},
		{name: "moved, the words there too", seen: recheck.Seen{Outcome: recheck.Moved, Text: cited}, want: recheck.Moved, found: citedSentence},
		{name: "moved, the words not there", seen: recheck.Seen{Outcome: recheck.Moved, Text: edited}, want: recheck.Moved},
		{name: "gone", seen: recheck.Seen{Outcome: recheck.Gone}, want: recheck.Gone},
		{name: "unreachable", seen: recheck.Seen{Outcome: recheck.Unreachable}, want: recheck.Unreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := recheck.Check(tc.seen, rs, span)
			if prepared := recheck.Check(recheck.NewSeen(tc.seen.Outcome, tc.seen.Text), rs, span); !reflect.DeepEqual(prepared, got) {
				t.Errorf("NewSeen's finding %+v differs from %+v", prepared, got)
			}
			if got.State != tc.want {
				t.Fatalf("state %s, want %s", got.State, tc.want)
			}
			now := []rune(tc.seen.Text)
			switch {
			case tc.found == "" && got.Found != nil:
				t.Errorf("found %+v, want none", got.Found)
			case tc.found != "" && (got.Found == nil || string(now[got.Found.Start:got.Found.End]) != tc.found):
				t.Errorf("found %+v, want the span of %q", got.Found, tc.found)
			}
			switch {
			case tc.aroundHas == "" && got.Around != nil:
				t.Errorf("around %q, want none", string(now[got.Around.Start:got.Around.End]))
			case tc.aroundHas != "" && got.Around == nil:
				t.Errorf("no around, want one holding %q", tc.aroundHas)
			case tc.aroundHas != "":
				a := string(now[got.Around.Start:got.Around.End])
				if !strings.Contains(a, tc.aroundHas) || (tc.aroundLack != "" && strings.Contains(a, tc.aroundLack)) {
					t.Errorf("around %q: want it to hold %q and not %q", a, tc.aroundHas, tc.aroundLack)
				}
			}
		})
	}
}

// TestAroundIsBounded: an edited span between anchors far apart gives at
// most MaxAroundRunes of text.
func TestAroundIsBounded(t *testing.T) {
	t.Parallel()
	rs := []rune(cited)
	span := spanOf(t, cited, citedSentence)
	now := strings.Replace(cited, citedSentence, strings.Repeat("Inserted words here. ", 200), 1)
	got := recheck.Check(recheck.Seen{Outcome: recheck.Unchanged, Text: now}, rs, span)
	if got.State != recheck.Edited || got.Around == nil {
		t.Fatalf("%+v, want edited with an around", got)
	}
	if n := got.Around.End - got.Around.Start; n != recheck.MaxAroundRunes {
		t.Errorf("around of %d runes, want %d", n, recheck.MaxAroundRunes)
	}
	if !strings.HasPrefix(string([]rune(now)[got.Around.Start:]), "Inserted words") {
		t.Errorf("around starts at %q", string([]rune(now)[got.Around.Start:got.Around.Start+20]))
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	for _, s := range recheck.States {
		want := s == recheck.Edited || s == recheck.Moved || s == recheck.Gone
		if s.Changed() != want {
			t.Errorf("%s.Changed() = %v", s, s.Changed())
		}
	}
}

// BenchmarkCheckEditedPage: 200 cited spans of a 1 MB page, none of them
// left in the text seen now (the costliest case: each is looked for under
// normalisation, then its neighbours), with the text prepared once
// (NewSeen) or by each Check.
func BenchmarkCheckEditedPage(b *testing.B) {
	var page strings.Builder
	for i := 0; page.Len() < 1<<20; i++ {
		fmt.Fprintf(&page, "Sentence %d says the glacier lost %d percent of its ice. ", i, i%97)
	}
	cited := []rune(page.String())
	now := strings.ReplaceAll(page.String(), "percent", "per cent")
	spans := make([]recheck.Span, 200)
	for i := range spans {
		s := len(cited) * i / len(spans)
		spans[i] = recheck.Span{Start: s, End: s + 120} // two sentences: a "percent" among them
	}
	for _, tc := range []struct {
		name string
		seen func() recheck.Seen
	}{
		{"prepared once", func() recheck.Seen { return recheck.NewSeen(recheck.Unchanged, now) }},
		{"prepared per check", func() recheck.Seen { return recheck.Seen{Outcome: recheck.Unchanged, Text: now} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				seen := tc.seen()
				for _, sp := range spans {
					if f := recheck.Check(seen, cited, sp); f.State != recheck.Edited {
						b.Fatalf("%+v", f)
					}
				}
			}
		})
	}
}
