package graphsnap

import (
	"strings"
	"testing"
)

func TestDigestAndDiff(t *testing.T) {
	t.Parallel()
	a := Graph{"claims": {"hypothesis|x", "hypothesis|y"}, "edges": {"supports|f|1", "origin|f|2"}}
	b := Graph{"claims": {"hypothesis|x", "hypothesis|y"}, "edges": {"supports|f|1", "origin|f|2"}}
	if a.Digest() != b.Digest() || Diff(a, b, 5) != "" {
		t.Fatal("equal graphs differ")
	}
	b["claims"] = []string{"hypothesis|x", "hypothesis|y", "hypothesis|y"}
	if a.Digest() == b.Digest() {
		t.Error("a duplicate row left the digest unchanged")
	}
	d := Diff(a, b, 5)
	if !strings.Contains(d, "claims: 2 rows in the reference, 3 in the run") || !strings.Contains(d, "  + hypothesis|y") {
		t.Errorf("diff %q does not show the duplicate", d)
	}
	if n := a.NLIEdges(); n != 1 {
		t.Errorf("NLIEdges = %d, want 1 (origin edges are not NLI)", n)
	}
}
