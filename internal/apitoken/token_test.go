package apitoken_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
)

// TestNewFormat: a secret is its kind's prefix and 43 base64url characters
// (32 bytes), parses as its kind, hashes to its SHA-256, and its hint is
// the 8 characters after the prefix; two secrets differ.
func TestNewFormat(t *testing.T) {
	t.Parallel()
	for kind, prefix := range map[apitoken.Kind]string{apitoken.Organization: "evf_org_", apitoken.Operator: "evf_op_"} {
		secret, hash, hint, err := apitoken.New(kind)
		if err != nil {
			t.Fatal(err)
		}
		body, ok := strings.CutPrefix(secret, prefix)
		if !ok || len(body) != 43 || strings.ContainsAny(body, "+/=") {
			t.Errorf("%s secret %q: want %s and 43 base64url characters", kind, secret, prefix)
		}
		if got, ok := apitoken.Parse(secret); !ok || got != kind {
			t.Errorf("Parse(new %s secret) = %q, %v", kind, got, ok)
		}
		if sum := sha256.Sum256([]byte(secret)); hex.EncodeToString(hash) != hex.EncodeToString(sum[:]) {
			t.Errorf("%s hash %x, want the secret's SHA-256 %x", kind, hash, sum)
		}
		if hint != body[:apitoken.HintLen] || len(hint) != 8 {
			t.Errorf("%s hint %q, want %q", kind, hint, body[:8])
		}
		if d := apitoken.Display(kind, hint); d != prefix+hint+"…" {
			t.Errorf("Display = %q", d)
		}
		other, _, _, err := apitoken.New(kind)
		if err != nil || other == secret {
			t.Errorf("a second %s secret %q (%v) equals the first", kind, other, err)
		}
	}
	if _, _, _, err := apitoken.New("admin"); err == nil {
		t.Error("New(\"admin\") made a secret")
	}
}

// TestHash is SHA-256 of the whole secret, prefix included.
func TestHash(t *testing.T) {
	t.Parallel()
	if got := hex.EncodeToString(apitoken.Hash("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Hash(abc) = %s", got)
	}
	body := strings.Repeat("A", 43)
	if string(apitoken.Hash("evf_org_"+body)) == string(apitoken.Hash("evf_op_"+body)) {
		t.Error("the hash ignores the prefix")
	}
}

// TestParseRefusesMalformed: anything but a prefix and exactly 43
// characters of canonical unpadded base64url is refused.
func TestParseRefusesMalformed(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("A", 43)
	if k, ok := apitoken.Parse("evf_org_" + good); !ok || k != apitoken.Organization {
		t.Fatalf("Parse(well-formed) = %q, %v", k, ok)
	}
	for _, s := range []string{
		"",
		"evf_org_",
		"evf_op_",
		good,
		"evf_org_" + good[:42],
		"evf_org_" + good + "A",
		"evf_op_" + good + "A",
		"evf_org_" + good[:42] + "=",
		"evf_org_" + good[:42] + "+",
		"evf_org_" + good[:42] + "/",
		"evf_org_" + good[:42] + "B", // non-canonical: the last character's unused bits set
		"evf_xx_" + good,
		"EVF_ORG_" + good,
		"Bearer evf_org_" + good,
		" evf_org_" + good,
		"evf_org_" + good + "\n",
		"evf_org_" + strings.Repeat("A", 1<<20),
		"evf_org_" + good[:41] + "é", // 43 bytes, not base64url
	} {
		if k, ok := apitoken.Parse(s); ok {
			t.Errorf("Parse(%.60q) = %q, true", s, k)
		}
	}
}
