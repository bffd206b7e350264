package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// TextHash identifies a claim text for idempotent inserts: SHA-256 of the
// text lowercased with whitespace collapsed.
func TextHash(text string) string {
	norm := strings.Join(strings.FieldsFunc(strings.ToLower(text), unicode.IsSpace), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}
