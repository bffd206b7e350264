package extracteval

import (
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
)

func TestHTMLTextBreaksBlocksNotInlineElements(t *testing.T) {
	t.Parallel()
	got, err := HTMLText([]byte(`<div><h2>Title</h2><p>Some <b>bold</b>ed te<i>xt</i>.<br>Next line</p>
		<ul><li>one</li><li>two</li></ul><script>var x = 1;</script><style>p{}</style></div>`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Title\nSome bolded text.\nNext line\none\ntwo"
	if got != want {
		t.Errorf("HTMLText = %q, want %q", got, want)
	}
}

func TestHalfOfSplitsTheDevelopmentSet(t *testing.T) {
	hostiletest.SkipUnderRace(t) // reads all 130 pages
	t.Parallel()
	pages, err := LoadPages("../../../testdata/extract-dev/readability", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, p := range pages {
		n[p.Half]++
		if p.Expected == "" || len(p.Source) == 0 {
			t.Errorf("%s: empty source or expected text", p.Name)
		}
	}
	if len(pages) != 130 || n["tune"] < 40 || n["check"] < 40 {
		t.Errorf("%d pages split %v, want 130 pages, both halves at least 40", len(pages), n)
	}
}

func TestRunScoresTheFleetOnTheDevelopmentSet(t *testing.T) {
	t.Parallel()
	pages, err := LoadPages("../../../testdata/extract-dev/readability", 10)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(pages, []Extractor{Fleet(50000)})
	if err != nil {
		t.Fatal(err)
	}
	all := res[0].Halves["all"]
	if all.Pages != 10 || all.F1 <= 0 || all.F1 > 1 {
		t.Errorf("fleet on 10 pages: %+v", all)
	}
	if w := res[0].Worst(3); len(w) != 3 || w[0].F1 > w[2].F1 {
		t.Errorf("Worst(3) = %+v, want the 3 lowest, lowest first", w)
	}
}

func TestSnippetCountsReadTextAsDisplayed(t *testing.T) {
	t.Parallel()
	p := SnippetPage{With: []string{"Über\u00adle\u00adbens aller", "not there"}, Without: []string{"Impressum", "Newsletter"}}
	var c SnippetCounts
	c.Add(p, "Das Überlebens\n  aller Hindernisse. Impressum")
	if c != (SnippetCounts{TP: 1, FN: 1, FP: 1, TN: 1}) {
		t.Errorf("counts %+v, want one of each", c)
	}
	pr, rc, f1, acc := c.Scores()
	if pr != 0.5 || rc != 0.5 || f1 != 0.5 || acc != 0.5 {
		t.Errorf("scores %v %v %v %v, want 0.5 each", pr, rc, f1, acc)
	}
}
