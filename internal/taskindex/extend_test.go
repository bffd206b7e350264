package taskindex

import (
	"fmt"
	"slices"
	"testing"
)

// pagedDocs are benchDocs spread over page versions of 7 fragments each.
func pagedDocs(n int) []Doc {
	docs, _ := benchDocs(n, 16)
	for i := range docs {
		docs[i].PageVersion = int64(1000 + i/7)
	}
	return docs
}

// counts is what TaskPageEmbeddedCounts would return for docs.
func counts(docs []Doc) []PageCount {
	per := map[int64]int32{}
	var order []int64
	for _, d := range docs {
		if per[d.PageVersion] == 0 {
			order = append(order, d.PageVersion)
		}
		per[d.PageVersion]++
	}
	out := make([]PageCount, len(order))
	for i, pv := range order {
		out[i] = PageCount{PageVersion: pv, Embedded: per[pv]}
	}
	return out
}

// extend adds to ix what Changes says it lacks of all, sending every
// fragment of the changed page versions (those it holds included), as
// TaskSearchDocs does.
func extend(t *testing.T, ix *Index, all []Doc) *Index {
	t.Helper()
	changed, more, ok := ix.Changes(counts(all))
	if !ok {
		t.Fatal("an index of a subset of the fragments cannot be extended")
	}
	b := ix.Extend(changed, more)
	for _, d := range all {
		if !slices.Contains(changed, d.PageVersion) {
			continue
		}
		if err := b.Add(d.PageVersion, d.ID, []byte(d.Domain), []byte(tsvectorText(d)), d.Vec); err != nil {
			t.Fatal(err)
		}
	}
	return b.Finish()
}

func tsvectorText(d Doc) string {
	var s string
	for i, lex := range d.Lexemes {
		if i > 0 {
			s += " "
		}
		s += "'" + lex + "'"
		for p := range d.Counts[i] {
			s += fmt.Sprintf("%s%d", map[bool]string{true: ":", false: ","}[p == 0], p+1)
		}
	}
	return s
}

// TestExtendedIndexIsTheFullBuild: an index built over some of a task's
// fragments and extended, once or several times, with the rest (new page
// versions, and more fragments of page versions it holds some of) recalls
// exactly what an index built over all of them at once does: the same
// fragments with the same scores, for every query.
func TestExtendedIndexIsTheFullBuild(t *testing.T) {
	t.Parallel()
	all := pagedDocs(3000)
	full, err := Build(all)
	if err != nil {
		t.Fatal(err)
	}
	// base: every page version's first fragments only, and no fragment of
	// the last third (pages joining later, fragments embedded later)
	var base []Doc
	for i, d := range all {
		if i < 2000 && i%7 < 4 {
			base = append(base, d)
		}
	}
	ix, err := Build(base)
	if err != nil {
		t.Fatal(err)
	}
	once := extend(t, ix, all)
	twice := extend(t, extend(t, ix, all[:2500]), all)
	if once.Len() != len(all) || twice.Len() != len(all) {
		t.Fatalf("extended indexes hold %d and %d fragments, want %d", once.Len(), twice.Len(), len(all))
	}
	for i := range 40 {
		q := Query{Lexemes: all[i*71].Lexemes[:5], Vec: all[i*13].Vec, ExcludeDomain: all[i].Domain}
		want := fmt.Sprint(full.Candidates(q, 60))
		if got := fmt.Sprint(once.Candidates(q, 60)); got != want {
			t.Fatalf("query %d: extended once\n%s\nbuilt at once\n%s", i, got, want)
		}
		if got := fmt.Sprint(twice.Candidates(q, 60)); got != want {
			t.Fatalf("query %d: extended twice\n%s\nbuilt at once\n%s", i, got, want)
		}
	}
	// the index extended is unchanged and still serves
	if ix.Len() != len(base) || fmt.Sprint(ix.Candidates(Query{Lexemes: base[0].Lexemes}, 5)) == fmt.Sprint(once.Candidates(Query{Lexemes: base[0].Lexemes}, 5)) {
		t.Errorf("extending changed the index extended (%d fragments, had %d)", ix.Len(), len(base))
	}
}

func TestChanges(t *testing.T) {
	t.Parallel()
	all := pagedDocs(70) // page versions 1000–1009, 7 fragments each
	ix, err := Build(all[:35])
	if err != nil {
		t.Fatal(err)
	}
	now := counts(all)
	tests := []struct {
		name    string
		now     []PageCount
		changed []int64
		more    int
		ok      bool
	}{
		{"nothing new", now[:5], nil, 0, true},
		{"new page versions", now, []int64{1005, 1006, 1007, 1008, 1009}, 35, true},
		{"more of a page version held", append(slices.Clone(now[:4]), PageCount{1004, 9}), []int64{1004}, 2, true},
		{"a page version gone", now[1:5], nil, 0, false},
		{"fewer embedded than held", append(slices.Clone(now[:4]), PageCount{1004, 6}), nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changed, more, ok := ix.Changes(tt.now)
			if fmt.Sprint(changed) != fmt.Sprint(tt.changed) || more != tt.more || ok != tt.ok {
				t.Errorf("got %v %d %v, want %v %d %v", changed, more, ok, tt.changed, tt.more, tt.ok)
			}
		})
	}
}
