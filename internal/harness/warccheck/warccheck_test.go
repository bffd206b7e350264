package warccheck

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	testURI  = "http://example.com/page?b=2&a=1"
	testDate = "2025-01-02T03:04:05Z"
	testBody = "<!doctype html><title>t</title><p>hello, archive</p>\n"
)

// digester writes a WARC digest header's value: an algorithm and an
// encoding of its sum.
type digester struct {
	label  string
	hash   func() hash.Hash
	encode func([]byte) string
}

var (
	sha1Base32   = digester{"sha1", sha1.New, base32.StdEncoding.EncodeToString}
	sha256Base16 = digester{"sha256", sha256.New, hex.EncodeToString}
	sha256Base32 = digester{"sha256", sha256.New, base32.StdEncoding.EncodeToString}
)

func (d digester) digest(b []byte) string {
	h := d.hash()
	h.Write(b)
	return d.label + ":" + d.encode(h.Sum(nil))
}

// record is one WARC record, gzip-compressed as its own member. Content-Length
// and the digests are of block; flip, when non-negative, is the index of a
// block byte flipped after the headers are written.
func record(t *testing.T, d digester, headers [][2]string, block []byte, payloadAt, flip int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	fmt.Fprintf(&b, "WARC-Block-Digest: %s\r\n", d.digest(block))
	if payloadAt >= 0 {
		fmt.Fprintf(&b, "WARC-Payload-Digest: %s\r\n", d.digest(block[payloadAt:]))
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(block))
	body := bytes.Clone(block)
	if flip >= 0 {
		body[flip] ^= 0x01
	}
	b.Write(body)
	b.WriteString("\r\n\r\n")
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// testWARC is a warcinfo and one response record, each its own gzip member.
type testWARC struct {
	path                   string
	info, response         []byte // the members
	payloadDigest, surtKey string
}

// writeWARC writes the test WARC into a temporary directory; flip >= 0
// flips that byte of the response's payload after its digests are written.
func writeWARC(t *testing.T, d digester, flip int) testWARC {
	t.Helper()
	info := []byte("software: evidencefleet warccheck test\r\nformat: WARC File Format 1.1\r\n")
	httpHead := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n", len(testBody))
	block := []byte(httpHead + testBody)
	if flip >= 0 {
		flip += len(httpHead)
	}
	w := testWARC{
		path: filepath.Join(t.TempDir(), "test.warc.gz"),
		info: record(t, d, [][2]string{
			{"WARC-Type", "warcinfo"},
			{"WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000001>"},
			{"WARC-Date", testDate},
			{"WARC-Filename", "test.warc.gz"},
			{"Content-Type", "application/warc-fields"},
		}, info, -1, -1),
		response: record(t, d, [][2]string{
			{"WARC-Type", "response"},
			{"WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000002>"},
			{"WARC-Date", testDate},
			{"WARC-Target-URI", testURI},
			{"Content-Type", "application/http; msgtype=response"},
		}, block, len(httpHead), flip),
		payloadDigest: d.digest([]byte(testBody)),
		surtKey:       "com,example)/page?a=1&b=2",
	}
	if err := os.WriteFile(w.path, append(bytes.Clone(w.info), w.response...), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// cdxj is the CDXJ line of the response record at offset.
func (w testWARC) cdxj(offset int) string {
	_, digest, _ := strings.Cut(w.payloadDigest, ":")
	return fmt.Sprintf(`%s 20250102030405 {"url":%q,"mime":"text/html","status":"200","digest":%q,"length":"%d","offset":"%d","filename":"test.warc.gz"}`+"\n",
		w.surtKey, testURI, digest, len(w.response), offset)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestValidWARC: a hand-written WARC with sha1 base32, sha256 base16 and
// sha256 base32 digests is valid, its response is reported at its gzip
// member, and warcio's CDXJ of it is the line written here, which checks.
func TestValidWARC(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]digester{"sha1 base32": sha1Base32, "sha256 base16": sha256Base16, "sha256 base32": sha256Base32} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := writeWARC(t, d, -1)
			r := Validate(t, w.path, "")
			if len(r.Errors) > 0 {
				t.Fatalf("errors in a valid WARC:\n%s", strings.Join(r.Errors, "\n"))
			}
			if r.Records != 2 || r.ByType["warcinfo"] != 1 || r.ByType["response"] != 1 || len(r.ByType) != 2 {
				t.Errorf("records %d, by type %v; want 2: a warcinfo and a response", r.Records, r.ByType)
			}
			want := Response{URI: testURI, Status: 200, Date: testDate, PayloadDigest: w.payloadDigest,
				Offset: int64(len(w.info)), Length: int64(len(w.response))}
			if len(r.Responses) != 1 || r.Responses[0] != want {
				t.Errorf("responses %+v, want [%+v]", r.Responses, want)
			}

			line := w.cdxj(len(w.info))
			if got := Index(t, w.path); got != line {
				t.Errorf("warcio's CDXJ:\n%s\nwant\n%s", got, line)
			}
			if r := Validate(t, w.path, writeFile(t, "test.cdxj", line)); len(r.Errors) > 0 {
				t.Errorf("errors with a valid CDXJ:\n%s", strings.Join(r.Errors, "\n"))
			}
		})
	}
}

// TestFlippedPayloadByte: one payload byte flipped after the digests were
// written fails both digests of the response.
func TestFlippedPayloadByte(t *testing.T) {
	t.Parallel()
	w := writeWARC(t, sha1Base32, 10)
	r := Validate(t, w.path, "")
	if r.Records != 2 {
		t.Errorf("%d records, want 2", r.Records)
	}
	for _, want := range []string{"WARC-Block-Digest sha1:", "WARC-Payload-Digest " + w.payloadDigest + " does not match"} {
		if !containsError(r.Errors, want) {
			t.Errorf("no error %q in:\n%s", want, strings.Join(r.Errors, "\n"))
		}
	}
	if len(r.Errors) != 2 {
		t.Errorf("%d errors, want the two digests':\n%s", len(r.Errors), strings.Join(r.Errors, "\n"))
	}
}

// TestCDXJWrongOffset: a line whose offset is one byte off addresses no
// record; a line of the wrong digest and a missing line are errors too.
func TestCDXJWrongOffset(t *testing.T) {
	t.Parallel()
	w := writeWARC(t, sha1Base32, -1)
	for name, c := range map[string]struct{ cdxj, want string }{
		"offset":  {w.cdxj(len(w.info) + 1), "offset " + strconv.Itoa(len(w.info)+1) + ": no record starts there"},
		"digest":  {strings.Replace(w.cdxj(len(w.info)), `"digest":"`, `"digest":"X`, 1), "but the record's WARC-Payload-Digest is " + w.payloadDigest},
		"missing": {"", "no line for the response record of " + testURI},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Validate(t, w.path, writeFile(t, "test.cdxj", c.cdxj))
			if !containsError(r.Errors, c.want) {
				t.Errorf("no error %q in:\n%s", c.want, strings.Join(r.Errors, "\n"))
			}
		})
	}
}

func containsError(errs []string, s string) bool {
	return slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, s) })
}
