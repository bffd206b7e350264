package main

import (
	"strings"
	"testing"
)

// TestOrgShareCommand: org share needs an explicit --org; it sets an
// organization's share in (0, 1], shows it, leaves other organizations at
// the default, returns it to the default, and refuses anything else as a
// usage error (exit 2) without changing what is set.
func TestOrgShareCommand(t *testing.T) {
	t.Parallel()
	b := setupTokens(t)
	type shown struct {
		Organization string   `json:"organization_id"`
		Share        *float64 `json:"share"`
	}
	show := func(org string) *float64 {
		var s shown
		b.mustRunJSON(t, &s, "org", "share", "--org", org)
		if s.Organization != org {
			t.Fatalf("org share --org %s shows organization %q", org, s.Organization)
		}
		return s.Share
	}
	if r := b.run(t, "org", "share", "0.25"); r.code() != 2 || !strings.Contains(r.err.Error(), "--org is required") {
		t.Errorf("share without --org: exit %d (%v), want 2, --org is required", r.code(), r.err)
	}
	if got := show("acme"); got != nil {
		t.Errorf("acme's share before any is set: %v, want the default (null)", *got)
	}
	if out := b.mustRun(t, "org", "share", "0.25", "--org", "acme"); !strings.Contains(out, `organization "acme": share 0.25`) {
		t.Errorf("setting acme's share printed %q", out)
	}
	if got := show("acme"); got == nil || *got != 0.25 {
		t.Errorf("acme's share: %v, want 0.25", got)
	}
	if got := show("globex"); got != nil {
		t.Errorf("globex's share: %v, want the default: acme's share is acme's", *got)
	}
	for _, bad := range []string{"0", "-0.5", "1.5", "NaN", "+Inf", "a quarter", "1e400"} {
		if r := b.run(t, "org", "share", bad, "--org", "acme"); r.code() != 2 {
			t.Errorf("share %q: exit %d (%v), want 2", bad, r.code(), r.err)
		}
	}
	if got := show("acme"); got == nil || *got != 0.25 {
		t.Errorf("acme's share after refused values: %v, want 0.25 still", got)
	}
	if out := b.mustRun(t, "org", "share", "default", "--org", "acme"); !strings.Contains(out, "the default share") {
		t.Errorf("returning acme to the default printed %q", out)
	}
	if got := show("acme"); got != nil {
		t.Errorf("acme's share after default: %v, want the default (null)", *got)
	}
}
