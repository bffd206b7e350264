package builtin

import (
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// TestLexiconDigitFree pins what lexToken.implies relies on: no word of
// wordTable and no stem of the lexicon starts with a digit, so that a
// token that looks like a number but is none has no lexicon entry.
func TestLexiconDigitFree(t *testing.T) {
	t.Parallel()
	for w := range wordTable {
		if isNumber(w) {
			t.Errorf("wordTable word %q starts with a digit", w)
		}
	}
	for st := range lexInfo {
		if isNumber(st) {
			t.Errorf("lexicon stem %q starts with a digit", st)
		}
	}
}

// TestContentTokenInfo checks on varied texts that every content token
// carries the lexicon entry of its stem (lexToken.implies).
func TestContentTokenInfo(t *testing.T) {
	t.Parallel()
	texts := []string{
		"A 3d printer prints 1st-class 4x4 parts; 19th-century carriers carry dozens.",
		"All of them, only because the women were not dancers, failed to win.",
		"One man and one of the dogs; no one saw the other one.",
		"Ünïcödé Straße ist schön; 数据科学.",
	}
	for _, text := range texts {
		for _, tok := range analyse(text).toks {
			if tok.kind == kContent && tok.info != lexInfo[tok.stem] {
				t.Errorf("%q: token %q (stem %q) has info %p, lexicon %p", text, tok.word, tok.stem, tok.info, lexInfo[tok.stem])
			}
		}
	}
}

// TestPremiseCacheBounded fills a premise cache beyond its budget and
// checks that it keeps at most two generations of bounded size.
func TestPremiseCacheBounded(t *testing.T) {
	t.Parallel()
	c := newPremiseCache()
	text := func(i int) string {
		return "Premise number " + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) +
			" says that a man and a woman are walking their dogs in the park near the river."
	}
	for i := range 4000 {
		c.get(text(i))
	}
	// A premise of the older generation is found there and moves to the
	// newer one.
	var older string
	for s := range c.old {
		if _, ok := c.cur[s]; !ok {
			older = s
			break
		}
	}
	if older == "" {
		t.Fatal("no premise only in the older generation")
	}
	before := c.made
	if _, kept := c.get(older); !kept || c.made != before {
		t.Errorf("premise of the older generation: kept %v, indexed again %v", kept, c.made != before)
	}
	if _, ok := c.cur[older]; !ok {
		t.Errorf("premise of the older generation not moved to the newer one")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0 // a premise in both generations counts twice
	for _, gen := range []map[string]*premiseIndex{c.cur, c.old} {
		for s, p := range gen {
			total += p.size() + len(s)
		}
	}
	if total > premiseCacheBytes {
		t.Errorf("cache holds about %d bytes, budget %d", total, premiseCacheBytes)
	}
	if c.old == nil {
		t.Errorf("no generation was dropped: the test premises are too small")
	}
	if c.curBytes > premiseCacheBytes/2 {
		t.Errorf("newer generation holds %d bytes, more than half the budget", c.curBytes)
	}
}

// TestPremiseCacheReuse checks that a premise judged in several calls, and
// against several hypotheses, is analysed once.
func TestPremiseCacheReuse(t *testing.T) {
	t.Parallel()
	n := NewLexicalNLI()
	premise := "Two women are walking their dogs in the park."
	for _, h := range []string{"People are walking dogs.", "The women are asleep.", "People are walking dogs."} {
		if _, err := n.Judge(t.Context(), []models.Pair{{Premise: premise, Hypothesis: h}, {Premise: "A man sleeps.", Hypothesis: h}}); err != nil {
			t.Fatal(err)
		}
	}
	if n.cache.made != 2 {
		t.Errorf("%d premises indexed, want 2", n.cache.made)
	}
}
