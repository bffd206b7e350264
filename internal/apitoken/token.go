// Package apitoken makes, checks and stores the bearer tokens of the
// service API. A token is an organization's (it acts for that organization
// only) or an operator's (no organization; operator operations). Its
// secret is "evf_org_" or "evf_op_" and 32 random bytes in unpadded
// base64url; the database holds its SHA-256 only, with a short hint for
// people to tell tokens apart (migrations/00021_api_tokens.sql).
//
// The format functions (New, Hash, Parse) are pure. Authenticate, Issue,
// List and Revoke run on the store; none writes a secret to a log, an
// error or the database.
package apitoken

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// Kind is whom a token acts for.
type Kind string

const (
	// Organization tokens act for one organization.
	Organization Kind = "organization"
	// Operator tokens act for the fleet's operators, no organization.
	Operator Kind = "operator"
)

const (
	orgPrefix = "evf_org_"
	opPrefix  = "evf_op_"
	// secretBytes of crypto/rand make a secret: 256 bits, beyond guessing,
	// which is why a fast hash (SHA-256) suffices to store it.
	secretBytes = 32
	// HintLen is how many characters of the secret after its prefix the
	// hint keeps (48 of its 256 bits).
	HintLen = 8
)

var encoding = base64.RawURLEncoding.Strict()

// encodedLen is the length of a secret after its prefix.
var encodedLen = encoding.EncodedLen(secretBytes)

// MaxSecretLen is the length of the longest well-formed secret: anything
// longer is refused before it is hashed.
var MaxSecretLen = len(orgPrefix) + encodedLen

// Valid reports whether k is one of the two kinds.
func (k Kind) Valid() bool { return k == Organization || k == Operator }

// prefix is the secret's prefix of kind k.
func (k Kind) prefix() string {
	if k == Operator {
		return opPrefix
	}
	return orgPrefix
}

// New makes a secret of kind k from crypto/rand, with its hash (to store)
// and its hint (to show).
func New(kind Kind) (secret string, hash []byte, hint string, err error) {
	if !kind.Valid() {
		return "", nil, "", fmt.Errorf("token kind %q: want %q or %q", kind, Organization, Operator)
	}
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, "", fmt.Errorf("random token: %w", err)
	}
	body := encoding.EncodeToString(b)
	secret = kind.prefix() + body
	return secret, Hash(secret), body[:HintLen], nil
}

// Hash is the SHA-256 of the whole secret, as stored in api_tokens.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Parse reports the kind of a well-formed secret: its prefix, then exactly
// the base64url of 32 bytes. It reads at most MaxSecretLen bytes of
// anything, so junk is refused without hashing or asking the database.
func Parse(secret string) (Kind, bool) {
	if len(secret) > MaxSecretLen {
		return "", false
	}
	var kind Kind
	body, ok := strings.CutPrefix(secret, orgPrefix)
	if ok {
		kind = Organization
	} else if body, ok = strings.CutPrefix(secret, opPrefix); ok {
		kind = Operator
	} else {
		return "", false
	}
	if len(body) != encodedLen {
		return "", false
	}
	if b, err := encoding.DecodeString(body); err != nil || len(b) != secretBytes {
		return "", false
	}
	return kind, true
}

// Display is how a token is named to people: its prefix and hint, never
// enough to use it ("evf_org_AbCd1234…").
func Display(kind Kind, hint string) string { return kind.prefix() + hint + "…" }
