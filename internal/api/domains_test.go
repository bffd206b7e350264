package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// TestDomainViewIsTheOrganizations: an organization's block through the
// API holds in its view only: it reads BLOCKED in its organization, the
// other organization reads the fleet's level, and the fleet's level of
// record stays.
func TestDomainViewIsTheOrganizations(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	const path = "/v1/domains/News.Victimsite.NET"
	if resp, data := b.call(t, http.MethodPost, path+"/view", b.owner.token, []byte(`{"action": "block", "reason": "spam farm", "reviewer": "ana"}`)); resp.StatusCode != http.StatusOK {
		t.Fatalf("block: %d %s", resp.StatusCode, clip(data))
	}
	read := func(token string) service.DomainView {
		t.Helper()
		resp, data := b.call(t, http.MethodGet, path, token, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, clip(data))
		}
		var v service.DomainView
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := read(b.owner.token); v.Domain != "news.victimsite.net" || v.Level != "BLOCKED" || v.BlockedIn != "organization" || v.FleetLevel != "UNVERIFIED" {
		t.Errorf("the owner's view %+v, want BLOCKED in its organization, UNVERIFIED fleet-wide", v)
	}
	if v := read(b.stranger.token); v.Level != "UNVERIFIED" || v.BlockedIn != "" {
		t.Errorf("the other organization's view %+v, want UNVERIFIED and no block", v)
	}
	if resp, data := b.call(t, http.MethodPost, path+"/view", b.owner.token, []byte(`{"action": "set", "level": "BLOCKED", "reason": "x"}`)); resp.StatusCode/100 != 4 {
		t.Errorf("set BLOCKED: %d %s, want a 4xx (block with action block)", resp.StatusCode, clip(data))
	}
}
