package eval

import (
	"net/url"
	"reflect"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

// climateFeverFile is the bundled Climate-FEVER sample relative to this
// package (testdata/climate-fever/ATTRIBUTION.md).
const climateFeverFile = "../../../testdata/climate-fever/climate-fever-dev.jsonl"

// sameNormalized reports whether the span of text reads as sentence after
// match normalisation.
func sameNormalized(t *testing.T, text string, s Span, sentence string) {
	t.Helper()
	r := []rune(text)
	got, _ := normalizeForMatch(string(r[s.Start:s.End]))
	want, _ := normalizeForMatch(norm.NFC.String(sentence))
	if got != want {
		t.Errorf("span %v reads %q, want %q", s, got, want)
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, sentence string
		want                 Span
		ok                   bool
	}{
		{"exact", "Alpha beta. Gamma delta.", "Gamma delta.", Span{12, 24}, true},
		{"first sentence of a block", "Alpha  beta.\n\nGamma delta.", "Alpha beta.", Span{0, 12}, true},
		{"whitespace runs in the sentence", "Alpha beta. Gamma delta.", " Gamma \t\n delta. ", Span{12, 24}, true},
		{"rune offsets", "Über café. El Niño warms.", "El Niño warms.", Span{11, 25}, true},
		{"NFD sentence", "Über café. El Niño warms.", "El Nin\u0303o warms.", Span{11, 25}, true},
		{"soft hyphen and zero-width space", "Über café. El Niño warms.", "El Ni\u00ADño\u200B warms.", Span{11, 25}, true},
		{"first occurrence", "A b. A b.", "A b.", Span{0, 4}, true},
		{"absent", "Alpha beta.", "Gamma.", Span{}, false},
		{"different case is absent", "Alpha beta.", "alpha beta.", Span{}, false},
		{"empty", "Alpha beta.", "", Span{}, false},
		{"blank", "Alpha beta.", " \n ", Span{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Locate(tt.text, tt.sentence)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("Locate = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
			if ok {
				sameNormalized(t, tt.text, got, tt.sentence)
			}
		})
	}
}

func TestOverlaps(t *testing.T) {
	t.Parallel()
	frags := []FragmentSpan{{ID: 3, Span: Span{21, 30}}, {ID: 1, Span: Span{0, 10}}, {ID: 2, Span: Span{11, 20}}}
	tests := []struct {
		name string
		span Span
		want []Overlap
	}{
		{"inside one", Span{2, 8}, []Overlap{{1, 6}}},
		{"whole fragment", Span{0, 10}, []Overlap{{1, 10}}},
		{"straddles two", Span{5, 15}, []Overlap{{1, 5}, {2, 4}}},
		{"three, largest share first", Span{8, 25}, []Overlap{{2, 9}, {3, 4}, {1, 2}}},
		{"tie goes to the earlier fragment", Span{7, 14}, []Overlap{{1, 3}, {2, 3}}},
		{"in the gap between fragments", Span{10, 11}, []Overlap{}},
		{"after the last", Span{30, 40}, []Overlap{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Overlaps(frags, tt.span); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Overlaps(%v) = %v, want %v", tt.span, got, tt.want)
			}
		})
	}
}

func TestPickEdge(t *testing.T) {
	t.Parallel()
	overlaps := []Overlap{{2, 9}, {3, 4}, {1, 2}}
	tests := []struct {
		name      string
		edges     map[int64]string
		wantLabel string
		wantFrag  int64
		wantOK    bool
	}{
		{"largest share judged", map[int64]string{2: "neutral", 3: "refutes"}, "neutral", 2, true},
		{"next judged fragment", map[int64]string{3: "refutes", 1: "supports"}, "refutes", 3, true},
		{"only the smallest share judged", map[int64]string{1: "supports"}, "supports", 1, true},
		{"edge of another fragment only", map[int64]string{9: "supports"}, "", 0, false},
		{"nothing judged", nil, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			label, frag, ok := PickEdge(overlaps, func(id int64) (string, bool) {
				l, ok := tt.edges[id]
				return l, ok
			})
			if label != tt.wantLabel || frag != tt.wantFrag || ok != tt.wantOK {
				t.Errorf("PickEdge = %q, %d, %v; want %q, %d, %v", label, frag, ok, tt.wantLabel, tt.wantFrag, tt.wantOK)
			}
		})
	}
	if _, _, ok := PickEdge(nil, func(int64) (string, bool) { return "supports", true }); ok {
		t.Error("PickEdge without overlaps reported a judged pair")
	}
}

// TestLocateInExtractedPages renders real Climate-FEVER articles as replay
// pages, extracts them the way target_queue does, and checks that every gold
// evidence sentence is located in the page text and covered by the
// fragments — with the default fragment size and with one small enough that
// sentences straddle fragments.
func TestLocateInExtractedPages(t *testing.T) {
	t.Parallel()
	records, err := corpus.ReadClimateFever(climateFeverFile)
	if err != nil {
		t.Fatal(err)
	}
	records = records[:40]
	pairs, _ := GoldPairs(records)
	texts := map[string]string{}
	for _, p := range corpus.RenderArticles(records) {
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := extract.FromHTMLWithContentType(p.Body, p.ContentType, u)
		if err != nil {
			t.Fatalf("extract %s: %v", p.URL, err)
		}
		texts[p.URL] = doc.Text
	}
	for _, maxRunes := range []int{600, 120} {
		straddling := 0
		for _, p := range pairs {
			text, ok := texts[p.URL]
			if !ok {
				t.Fatalf("no page for %s", p.URL)
			}
			span, ok := Locate(text, p.Sentence)
			if !ok {
				t.Errorf("sentence not located in %s: %q", p.URL, p.Sentence)
				continue
			}
			sameNormalized(t, text, span, p.Sentence)
			var frags []FragmentSpan
			for i, f := range extract.Fragments(text, extract.FragmentOptions{MaxRunes: maxRunes}) {
				frags = append(frags, FragmentSpan{ID: int64(i + 1), Span: Span{f.Start, f.End}})
			}
			ov := Overlaps(frags, span)
			if len(ov) == 0 {
				t.Errorf("max %d: no fragment overlaps %v in %s", maxRunes, span, p.URL)
				continue
			}
			if len(ov) > 1 {
				straddling++
			}
			covered := 0
			for i, o := range ov {
				covered += o.Runes
				if i > 0 && o.Runes > ov[i-1].Runes {
					t.Errorf("overlaps not largest first: %v", ov)
				}
			}
			// Fragments never hold the whitespace between them, nothing else.
			if covered > span.End-span.Start || covered < span.End-span.Start-(len(ov)-1)*2 {
				t.Errorf("max %d: fragments cover %d runes of a %d-rune sentence", maxRunes, covered, span.End-span.Start)
			}
		}
		if maxRunes == 120 && straddling == 0 {
			t.Error("with 120-rune fragments no sentence straddled two: the straddling path was not exercised")
		}
		t.Logf("max %d runes: %d pairs, %d straddling", maxRunes, len(pairs), straddling)
	}
}
