// Package warccheck checks WARC files and their CDXJ indexes with an
// independent implementation: Webrecorder's warcio.js (npm-pinned in
// scripts/warcio, installed by make warcio), through node
// scripts/warcio/check.mjs. warcio parses the records; the script recomputes
// each record's WARC-Block-Digest and WARC-Payload-Digest (sha1, sha256,
// sha512 or md5; base32 or base16) over the bytes warcio read (a block
// digest is required on every record but warcinfo, a payload digest on
// every HTTP response), compares Content-Length, and checks each CDXJ line
// against the record at its offset and length, read alone as a replay tool
// reads it; every response record must have a line.
//
// Without node or scripts/warcio/node_modules the tests that use it skip,
// or fail when EVF_REQUIRE_DOC_TOOLS is set (CI sets it).
package warccheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
)

// requireEnv makes a missing node or warcio.js fail the test instead of
// skipping it.
const requireEnv = "EVF_REQUIRE_DOC_TOOLS"

// script is check.mjs, and installed warcio's package.json, relative to the
// module root.
const (
	script      = "scripts/warcio/check.mjs"
	writeScript = "scripts/warcio/write.mjs"
	installed   = "scripts/warcio/node_modules/warcio/package.json"
)

// Report is check.mjs's summary of one WARC file.
type Report struct {
	Records   int            `json:"records"`
	ByType    map[string]int `json:"by_type"` // records by WARC-Type
	Responses []Response     `json:"responses"`
	// Errors is every failed check: a digest, Content-Length or header of
	// a record, or a CDXJ line; empty when the file (and index) are valid.
	Errors []string `json:"errors"`
}

// Response is one response record.
type Response struct {
	URI    string `json:"uri"`    // WARC-Target-URI
	Status int    `json:"status"` // HTTP status; 0 when the block had none
	Date   string `json:"date"`   // WARC-Date
	// PayloadDigest is the WARC-Payload-Digest header as written
	// ("sha1:BASE32…").
	PayloadDigest string `json:"payload_digest"`
	// Offset and Length are the record's byte range in the file as warcio
	// reports it: its gzip member in a gzip-per-record file; the record
	// without its two trailing CRLFs in an uncompressed one; -1 in a file
	// gzip-compressed as a whole.
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// Validate checks the WARC file at warcPath and, unless cdxjPath is empty,
// the CDXJ index at cdxjPath against it. Failed checks are in the report's
// Errors; t fails only when the checker itself cannot run.
func Validate(t testing.TB, warcPath, cdxjPath string) Report {
	t.Helper()
	args := []string{abs(t, warcPath)}
	if cdxjPath != "" {
		args = append(args, abs(t, cdxjPath))
	}
	out, err := run(t, script, nil, args...)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatal(err)
	}
	var r Report
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("node %s: output is not its JSON summary: %v\n%s", script, jerr, out)
	}
	if (err != nil) != (len(r.Errors) > 0) {
		t.Fatalf("node %s: exit status %v with %d errors", script, err, len(r.Errors))
	}
	return r
}

// Index returns warcio's own CDXJ index of the WARC file at warcPath (its
// CDXIndexer, as `warcio.js cdx-index --format cdxj` writes it), one line
// per response, revisit or resource record in file order, unsorted:
//
//	com,example)/a?a=1&b=2 20250102030405 {"url":"http://example.com/a?b=2&a=1","mime":"text/html","status":"200","digest":"…","length":"346","offset":"204","filename":"x.warc.gz"}
//
// status, length and offset are JSON strings; digest is the
// WARC-Payload-Digest without its "sha1:" label; filename the file's base
// name.
func Index(t testing.TB, warcPath string) string {
	t.Helper()
	out, err := run(t, script, nil, "--index", abs(t, warcPath))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Record is one response Write records.
type Record struct {
	URL    string
	Date   time.Time
	Status int
	Header http.Header
	Body   []byte
}

// Write writes records as a WARC file at warcPath with warcio.js (node
// scripts/warcio/write.mjs): a crawl as another tool records it, a
// warcinfo then one gzip-compressed response record each.
func Write(t testing.TB, warcPath string, records []Record) {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range records {
		headers := map[string]string{}
		for name := range r.Header {
			headers[name] = r.Header.Get(name)
		}
		line := struct {
			URL     string            `json:"url"`
			Date    string            `json:"date"`
			Status  int               `json:"status"`
			Reason  string            `json:"reason"`
			Headers map[string]string `json:"headers"`
			Body    []byte            `json:"body"`
		}{r.URL, r.Date.UTC().Format(time.RFC3339), r.Status, http.StatusText(r.Status), headers, r.Body}
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run(t, writeScript, &in, abs(t, warcPath)); err != nil {
		t.Fatal(err)
	}
}

// run runs one of the scripts with args (and stdin, when not nil) and
// returns its standard output. It skips (or fails) t when node or
// warcio.js is missing.
func run(t testing.TB, script string, stdin io.Reader, args ...string) ([]byte, error) {
	t.Helper()
	root, err := repodata.Root()
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, installed))
	}
	if err != nil {
		msg := fmt.Sprintf("warcio.js is not installed (make warcio; it needs node and npm): %v", err)
		if os.Getenv(requireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cmd := exec.CommandContext(t.Context(), node, append([]string{filepath.Join(root, script)}, args...)...)
	cmd.Dir = root
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("node %s %q: %w\n%s", script, args, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// abs makes a test's path (relative to its package directory) absolute:
// check.mjs runs in the module root.
func abs(t testing.TB, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
