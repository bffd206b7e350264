package builtin

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// The SNLI sample, split by a content-blind rule into the part whose errors
// may be read while designing LexicalNLI and the part its accuracy is
// reported on (testdata/nli/ATTRIBUTION.md; TestNLISplit checks the split).
const (
	auditTuneSNLI   = "../../../testdata/nli/tune/snli.tsv"
	auditReportSNLI = "../../../testdata/nli/report/snli.tsv"
)

// auditEntry is one relation of the lexicon as TestLexiconNotDerivedFromReportSplit
// checks it: stem a on one side of a pair and stem b on the other.
type auditEntry struct {
	list, desc string // the list and the entry, for messages
	a, b       string // stems (for an irregular form: its stem, form is the surface form)
	directed   bool   // a in the premise and b in the hypothesis only (hypernyms)
	form       string // irregularForms: the inflected surface form
}

// auditText is what the audit sees of a text: the stems and the surface
// forms of its tokens, as LexicalNLI's own analyse makes them.
type auditText struct {
	stems map[string]bool
	words map[string]bool
	// stemWords maps each stem to the surface forms that gave it.
	stemWords map[string][]string
}

func newAuditText(s string) auditText {
	at := auditText{stems: map[string]bool{}, words: map[string]bool{}, stemWords: map[string][]string{}}
	for _, tok := range analyse(s).toks {
		if tok.kind == kBoundary {
			continue
		}
		at.stems[tok.stem] = true
		at.words[tok.word] = true
		at.stemWords[tok.stem] = appendUnique(at.stemWords[tok.stem], tok.word)
	}
	return at
}

// hasOtherForm reports whether the text has a word of stem st other than
// the surface form form.
func (at auditText) hasOtherForm(st, form string) bool {
	for _, w := range at.stemWords[st] {
		if w != form {
			return true
		}
	}
	return false
}

// fires reports whether e relates premise p to hypothesis h.
func (e auditEntry) fires(p, h auditText) bool {
	if e.form != "" {
		// The irregular form in one text, another form of its stem in the other.
		return (p.words[e.form] && h.hasOtherForm(e.a, e.form)) || (h.words[e.form] && p.hasOtherForm(e.a, e.form))
	}
	if p.stems[e.a] && h.stems[e.b] {
		return true
	}
	return !e.directed && p.stems[e.b] && h.stems[e.a]
}

// auditEntries lists every relational entry of the lexicon. Entries whose
// two sides have the same stem relate nothing and are left out.
//
// The single-word lists are not audited: negationWords, negationBeforeTo,
// negationCancelledBy, hedgeWords, universalWords and negUniversalWords,
// claimWords, clauseWords, clauseAfterAnd, malePronouns and
// femalePronouns, lightWords, numberWords and the number comparators, and
// the stop-word lists. They are closed classes of general English
// (function words, pronouns, number words, the most frequent words) that
// relate no two content words. Nor are the irregularForms entries that map
// a word to itself (they only protect it from suffix stripping) or that
// inflect a stop word ("was" → "be", "did" → "do"), and exclusiveApart,
// which takes relations away. compatiblePairs are audited: they are
// relations too (that two words do not conflict).
func auditEntries() []auditEntry {
	var es []auditEntry
	pair := func(list, desc, a, b string, directed bool) {
		if sa, sb := stem(a), stem(b); sa != sb {
			es = append(es, auditEntry{list: list, desc: desc, a: sa, b: sb, directed: directed})
		}
	}
	pairs := func(list string, ps [][2]string) {
		for _, p := range ps {
			pair(list, fmt.Sprintf("{%q, %q}", p[0], p[1]), p[0], p[1], false)
		}
	}
	pairs("antonymPairs", antonymPairs)
	pairs("personAntonymPairs", personAntonymPairs)
	pairs("adjectiveAntonymPairs", adjectiveAntonymPairs)
	pairs("compatiblePairs", compatiblePairs)
	apart := map[[2]string]bool{}
	for _, p := range exclusiveApart {
		a, b := stem(p[0]), stem(p[1])
		apart[[2]string{a, b}], apart[[2]string{b, a}] = true, true
	}
	for gi, g := range exclusiveGroups {
		for i, a := range g.words {
			for _, b := range g.words[i+1:] {
				if apart[[2]string{stem(a), stem(b)}] {
					continue // taken apart: no relation
				}
				pair("exclusiveGroups", fmt.Sprintf("[%d] (%s, …): %q and %q", gi, g.words[0], a, b), a, b, false)
			}
		}
	}
	for oi, o := range exclusiveOppositions {
		for _, a := range o[0] {
			for _, b := range o[1] {
				pair("exclusiveOppositions", fmt.Sprintf("[%d]: %q against %q", oi, a, b), a, b, false)
			}
		}
	}
	for gi, g := range synonymGroups {
		for i, a := range g {
			for _, b := range g[i+1:] {
				pair("synonymGroups", fmt.Sprintf("[%d] %q: %q and %q", gi, g, a, b), a, b, false)
			}
		}
	}
	for _, spec := range slices.Sorted(maps.Keys(hypernyms)) {
		for _, gen := range hypernyms[spec] {
			pair("hypernyms", fmt.Sprintf("%q → %q", spec, gen), spec, gen, true)
		}
	}
	for _, form := range slices.Sorted(maps.Keys(irregularForms)) {
		if base := irregularForms[form]; base != form && wordTable[form].flags&wStop == 0 {
			es = append(es, auditEntry{list: "irregularForms", desc: fmt.Sprintf("%q: %q", form, base), a: stem(form), form: form})
		}
	}
	return es
}

// auditRow is an analysed premise/hypothesis pair with its line.
type auditRow struct {
	line string
	p, h auditText
}

// readAuditRows reads and analyses the rows of an NLI TSV file; a missing
// file fails the test.
func readAuditRows(t *testing.T, path string) []auditRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("NLI sample %s: %v", path, err)
	}
	defer f.Close()
	var rows []auditRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			t.Fatalf("%s line %d: %d fields, want 3", path, len(rows)+1, len(parts))
		}
		rows = append(rows, auditRow{line: sc.Text(), p: newAuditText(parts[1]), h: newAuditText(parts[2])})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}

// TestLexiconNotDerivedFromReportSplit audits the lexicon against the split
// of the SNLI sample, whose errors were read while designing LexicalNLI.
// An entry fires on a row when one of its words occurs in the premise and
// the other in the hypothesis (both as stems, by the model's own analyse;
// a hypernym only with the specific word in the premise and the general
// word in the hypothesis; an irregular form with the form in one text and
// another form of its stem in the other). Each pair of distinct members of
// a group (exclusive groups, synonym groups) and each pair across the two
// sets of an opposition is an entry. An entry that fires on a row of the
// report part but on no row of the tuning part can only have come from
// reading the report part, and must not exist. Firing is literal: an entry
// the model also uses through others (guitar → instrument, then
// instrument → music) fires only where its own two words occur; that a
// removed relation is not derived through other entries either is checked
// by TestLexiconAuditRemovalsHold.
func TestLexiconNotDerivedFromReportSplit(t *testing.T) {
	t.Parallel()
	tune := readAuditRows(t, auditTuneSNLI)
	report := readAuditRows(t, auditReportSNLI)
	type tally struct{ entries, onTune, onReport, flagged int }
	tallies := map[string]*tally{}
	var lists []string
	for _, e := range auditEntries() {
		tl := tallies[e.list]
		if tl == nil {
			tl = &tally{}
			tallies[e.list] = tl
			lists = append(lists, e.list)
		}
		tl.entries++
		onTune := slices.ContainsFunc(tune, func(r auditRow) bool { return e.fires(r.p, r.h) })
		var hits []string
		for _, r := range report {
			if e.fires(r.p, r.h) {
				hits = append(hits, r.line)
			}
		}
		if onTune {
			tl.onTune++
		}
		if len(hits) > 0 {
			tl.onReport++
		}
		if !onTune && len(hits) > 0 {
			tl.flagged++
			t.Errorf("%s %s fires on %d row(s) of %s and on none of %s, e.g. %q",
				e.list, e.desc, len(hits), auditReportSNLI, auditTuneSNLI, hits[0])
		}
	}
	for _, l := range lists {
		tl := tallies[l]
		t.Logf("%-22s %4d entries, %3d fire on the tuning part, %3d on the report part, %d on the report part only",
			l, tl.entries, tl.onTune, tl.onReport, tl.flagged)
	}
}

// auditRemoved are the relations removed from the lexicon because
// TestLexiconNotDerivedFromReportSplit flagged them, and those removed with
// them because LexicalNLI would otherwise still derive a flagged relation
// from other entries (marked "with"): through the transitive closure of
// implications, or through the group sides a word inherits from what it
// implies. Kinds: "cover" (premise a covers hypothesis b), "synonym" (either
// covers the other), "conflict", "compatible" (a group holds them as
// compatible alternatives), "form" (an irregular form and its base).
//
// Not listed: "baby" → "person", still derived through "baby" → "child" →
// "person", two entries that fire on the tuning part; "bit" → "bite", an
// irregular form the stemmer makes anyway ("bite" → "bit"), so removing it
// changed nothing. "swimmer" → "swim" and "golfer" → "golf" are still
// covered by LexicalNLI's general agent-noun rule (agentBase), which is no
// lexicon entry.
var auditRemoved = []struct{ kind, a, b, with string }{
	{"conflict", "open", "shut", ""}, {"conflict", "whisper", "yell", ""}, {"conflict", "barefoot", "shoe", ""},
	{"conflict", "big", "little", ""}, {"conflict", "large", "little", ""}, {"conflict", "new", "used", ""},
	{"conflict", "young", "elderly", ""},
	{"compatible", "run", "race", ""}, {"compatible", "horse", "ride", ""},
	{"conflict", "red", "black", ""}, {"conflict", "blue", "black", ""}, {"conflict", "green", "white", ""},
	{"conflict", "yellow", "white", ""}, {"conflict", "white", "brown", ""}, {"conflict", "golf", "bowling", ""},
	{"conflict", "piano", "clarinet", ""}, {"conflict", "car", "truck", ""}, {"conflict", "car", "boat", ""},
	{"conflict", "bathroom", "school", ""}, {"conflict", "walk", "ride", ""}, {"conflict", "blond", "redhead", ""},
	{"conflict", "telescope", "microscope", ""},
	{"conflict", "sit", "ski", ""}, {"conflict", "sit", "hike", ""}, {"conflict", "stand", "run", ""},
	{"conflict", "sleep", "work", ""}, {"conflict", "sleep", "kick", ""}, {"conflict", "nap", "pull", ""},
	{"conflict", "nap", "look", ""}, {"conflict", "nap", "watch", "nap/look (look → watch)"},
	{"synonym", "hat", "cap", ""}, {"synonym", "bicycle", "cycle", ""}, {"synonym", "talk", "conversation", ""},
	{"synonym", "discussion", "conversation", "talk/conversation"},
	{"synonym", "yell", "shout", "whisper/yell"}, {"synonym", "yell", "scream", "whisper/yell"},
	{"cover", "basketball", "sport", ""}, {"cover", "book", "literature", ""}, {"cover", "cake", "food", ""},
	{"cover", "canoe", "boat", ""}, {"cover", "cat", "animal", ""}, {"cover", "cat", "pet", "cat → animal"},
	{"cover", "cyclist", "bicycle", ""}, {"cover", "friend", "person", ""}, {"cover", "girl", "female", ""},
	{"cover", "golfer", "golf", ""}, {"cover", "greyhound", "dog", ""}, {"cover", "guitar", "instrument", ""},
	{"cover", "human", "person", ""}, {"cover", "juggle", "perform", ""}, {"cover", "musician", "music", ""},
	{"cover", "official", "person", ""}, {"cover", "paddle", "boat", ""}, {"cover", "policeman", "officer", ""},
	{"cover", "smile", "happy", ""}, {"cover", "swimmer", "swim", ""}, {"cover", "team", "people", ""},
	{"cover", "worker", "person", ""}, {"cover", "hike", "walk", "sit/hike (hike → walk)"},
	{"cover", "nap", "sleep", "nap/pull, nap/look (nap → sleep)"},
	{"form", "stood", "stand", ""}, {"form", "ridden", "ride", ""},
}

// TestLexiconAuditRemovalsHold checks that LexicalNLI's lexicon relates
// none of the pairs in auditRemoved, directly or through other entries, so
// that a removal is not undone by an entry added later.
func TestLexiconAuditRemovalsHold(t *testing.T) {
	t.Parallel()
	// conflict reports whether stems a and b are alternatives of one group
	// that conflict, as LexicalNLI.conflict sees their sides.
	conflict := func(a, b string) bool {
		wa, wb := lexInfo[a], lexInfo[b]
		if wa == nil || wb == nil {
			return false
		}
		for _, sa := range wa.sides {
			for _, sb := range wb.sides {
				g := &lexGroups[sa.g]
				if sa.g == sb.g && sa.mask&sb.mask == 0 &&
					(sb.mask&^g.compatible(sa.mask) != 0 || sa.mask&^g.compatible(sb.mask) != 0) {
					return true
				}
			}
		}
		return false
	}
	compatible := func(a, b string) bool {
		wa, wb := lexInfo[a], lexInfo[b]
		if wa == nil || wb == nil {
			return false
		}
		for _, sa := range wa.sides {
			for _, sb := range wb.sides {
				if sa.g == sb.g && sa.mask&sb.mask == 0 && lexGroups[sa.g].compatible(sa.mask)&sb.mask != 0 {
					return true
				}
			}
		}
		return false
	}
	for _, r := range auditRemoved {
		a, b := stem(r.a), stem(r.b)
		var still bool
		switch r.kind {
		case "cover":
			still = implies(a, b)
		case "synonym":
			still = implies(a, b) || implies(b, a)
		case "conflict":
			still = conflict(a, b)
		case "compatible":
			still = compatible(a, b)
		case "form":
			still = a == b
		default:
			t.Fatalf("unknown kind %q", r.kind)
		}
		if still {
			t.Errorf("the lexicon still relates %q and %q (%s), which the audit removed", r.a, r.b, r.kind)
		}
	}
}
