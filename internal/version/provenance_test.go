package version

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMeasuredNamesTheCheckout: inside this repository's checkout the
// provenance is its commit (a short hex revision, perhaps -dirty), dated now.
func TestMeasuredNamesTheCheckout(t *testing.T) {
	t.Parallel()
	before := time.Now().UTC().Add(-time.Second)
	p := Measured(context.Background())
	if !regexp.MustCompile(`^[0-9a-f]{12}(-dirty)?$`).MatchString(p.Commit) {
		t.Errorf("commit %q, want a 12-digit revision", p.Commit)
	}
	if p.At.Before(before) || p.At.After(time.Now().UTC().Add(time.Second)) {
		t.Errorf("measured at %v, want now", p.At)
	}
	if s := p.String(); !strings.HasPrefix(s, "commit "+p.Commit+", ") || !strings.HasSuffix(s, " UTC") {
		t.Errorf("String() = %q", s)
	}
}
