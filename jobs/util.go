package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/evidencefleet/evidencefleet/store"
)

// TextHash identifies a claim text for idempotent inserts: SHA-256 of the
// text lowercased with whitespace collapsed.
func TextHash(text string) string {
	norm := strings.Join(strings.FieldsFunc(strings.ToLower(text), unicode.IsSpace), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{}`)
	}
	return b
}

// snoozeCount is how often River has snoozed the job (metadata "snoozes").
func snoozeCount(metadata []byte) int64 {
	var m struct {
		Snoozes int64 `json:"snoozes"`
	}
	_ = json.Unmarshal(metadata, &m)
	return m.Snoozes
}

func isForeignKeyViolation(err error) bool { return store.IsForeignKeyViolation(err) }
