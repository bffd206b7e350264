// Package warc writes WARC files (ISO 28500, WARC 1.1) and their CDXJ
// indexes, the formats web-archive tools share, with
// github.com/nlnwa/gowarc: the demo corpus, the replay archives the tests
// write and a task's evidence export (service.ExportWARC). internal/crawl
// reads them back (crawl.OpenArchive).
package warc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// Capture is one recorded HTTP exchange, as a WARC response record holds
// it (ISO 28500, WARC 1.1): the target URI, when it was seen, the status,
// headers and body; and, when it was recorded, the GET request it answered
// (the request's headers), which a request record beside it holds.
type Capture struct {
	URL     string
	Date    time.Time
	Status  int
	Header  http.Header
	Body    []byte
	Request http.Header // nil: the request was not recorded
}

// Write writes a WARC file to w: a warcinfo record naming software,
// then one response record per capture (Writer).
func Write(w io.Writer, software string, captures []Capture) error {
	ww, err := NewWriter(w, software, firstDate(captures))
	if err != nil {
		return err
	}
	for _, c := range captures {
		if _, err := ww.Write(c); err != nil {
			return err
		}
	}
	return nil
}

// Writer writes a WARC file record by record: a warcinfo record first,
// then a response record per capture, each compressed as its own gzip
// member (a .warc.gz that readers can enter at any record's offset). Every
// record's WARC-Record-ID is derived from its content, and gzip carries no
// time, so the same captures always give the same bytes.
type Writer struct {
	w      io.Writer
	offset int64
	m      gowarc.Marshaler
}

// Written is where a record went and what a CDXJ index line says of it.
type Written struct {
	URL           string
	Date          time.Time
	Status        int
	MIME          string // the response's media type, without parameters
	PayloadDigest string // the record's WARC-Payload-Digest ("sha256:…")
	Offset        int64  // of its gzip member in the file
	Length        int64  // of its gzip member
}

// NewWriter writes the warcinfo record (dated date) to w.
func NewWriter(w io.Writer, software string, date time.Time) (*Writer, error) {
	ww := &Writer{w: w, m: gowarc.NewMarshaler()}
	info := newRecordBuilder(gowarc.Warcinfo)
	fields := "software: " + software + "\r\nformat: WARC File Format 1.1\r\n"
	info.AddWarcHeader(gowarc.WarcRecordID, recordID("warcinfo", fields, date.UTC().Format(time.RFC3339Nano)))
	info.AddWarcHeaderTime(gowarc.WarcDate, date)
	info.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if _, err := info.WriteString(fields); err != nil {
		return nil, fmt.Errorf("warc: warcinfo: %w", err)
	}
	if _, err := ww.record(info); err != nil {
		return nil, fmt.Errorf("warc: warcinfo: %w", err)
	}
	return ww, nil
}

// Write writes c as a response record — then, when c's request was
// recorded, a request record concurrent to it; fields are further WARC
// header fields of the response (the fleet's own, such as the page
// version's id).
func (ww *Writer) Write(c Capture, fields ...[2]string) (Written, error) {
	block := httpResponseBlock(c)
	rb := newRecordBuilder(gowarc.Response)
	id := recordID(c.URL, c.Date.UTC().Format(time.RFC3339Nano), string(block))
	rb.AddWarcHeader(gowarc.WarcRecordID, id)
	rb.AddWarcHeader(gowarc.WarcTargetURI, c.URL)
	rb.AddWarcHeaderTime(gowarc.WarcDate, c.Date)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	for _, f := range fields {
		rb.AddWarcHeader(f[0], f[1])
	}
	if _, err := rb.Write(block); err != nil {
		return Written{}, fmt.Errorf("warc: %s: %w", c.URL, err)
	}
	at := ww.offset
	digest, err := ww.record(rb)
	if err != nil {
		return Written{}, fmt.Errorf("warc: %s: %w", c.URL, err)
	}
	length := ww.offset - at
	if c.Request != nil {
		if err := ww.writeRequest(c, id); err != nil {
			return Written{}, err
		}
	}
	status := c.Status
	if status == 0 {
		status = http.StatusOK
	}
	mime, _, _ := strings.Cut(c.Header.Get("Content-Type"), ";")
	return Written{URL: c.URL, Date: c.Date, Status: status, MIME: strings.TrimSpace(mime), PayloadDigest: digest,
		Offset: at, Length: length}, nil
}

// writeRequest writes the request c answered as a request record,
// concurrent to the response record responseID.
func (ww *Writer) writeRequest(c Capture, responseID string) error {
	block, err := httpRequestBlock(c)
	if err != nil {
		return fmt.Errorf("warc: %s: %w", c.URL, err)
	}
	rb := newRecordBuilder(gowarc.Request)
	rb.AddWarcHeader(gowarc.WarcRecordID, recordID("request", responseID, string(block)))
	rb.AddWarcHeader(gowarc.WarcTargetURI, c.URL)
	rb.AddWarcHeaderTime(gowarc.WarcDate, c.Date)
	rb.AddWarcHeader(gowarc.WarcConcurrentTo, responseID)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=request")
	if _, err := rb.Write(block); err != nil {
		return fmt.Errorf("warc: %s: %w", c.URL, err)
	}
	if _, err := ww.record(rb); err != nil {
		return fmt.Errorf("warc: request of %s: %w", c.URL, err)
	}
	return nil
}

// record builds a record and writes it as one gzip member, returning its
// payload digest.
func (ww *Writer) record(rb gowarc.WarcRecordBuilder) (string, error) {
	rec, validation, err := rb.Build()
	if err != nil {
		return "", err
	}
	defer rec.Close()
	if len(validation) > 0 {
		return "", fmt.Errorf("invalid record: %v", validation)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, _, err := ww.m.Marshal(zw, rec, 0); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	n, err := ww.w.Write(buf.Bytes())
	ww.offset += int64(n)
	if err != nil {
		return "", err
	}
	return rec.WarcHeader().Get(gowarc.WarcPayloadDigest), nil
}

// CDXJLine is the CDXJ index line of a written record in the file named
// filename, as pywb and warcio.js write it: SURT key, 14-digit timestamp,
// then url, mime, status, digest (without its algorithm), length, offset
// and filename as JSON strings.
func CDXJLine(w Written, filename string) string {
	_, digest, _ := strings.Cut(w.PayloadDigest, ":")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		URL      string `json:"url"`
		MIME     string `json:"mime,omitempty"`
		Status   string `json:"status"`
		Digest   string `json:"digest"`
		Length   string `json:"length"`
		Offset   string `json:"offset"`
		Filename string `json:"filename"`
	}{w.URL, w.MIME, strconv.Itoa(w.Status), digest, strconv.FormatInt(w.Length, 10), strconv.FormatInt(w.Offset, 10), filename})
	return SURT(w.URL) + " " + w.Date.UTC().Format("20060102150405") + " " + b.String()
}

// leadingWWW is the www prefix a SURT drops.
var leadingWWW = regexp.MustCompile(`^(https?://)www[0-9]*\.`)

// SURT is the sort-friendly URI key of u that web-archive indexes sort by
// (as warcio.js and pywb make it): without www, lowercased, the host's
// labels reversed and joined by commas, ")" then the path and the query's
// parameters sorted. A URL that is not http(s) is its own key.
func SURT(u string) string {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return u
	}
	lower := strings.ToLower(leadingWWW.ReplaceAllString(u, "$1"))
	p, err := url.Parse(lower)
	if err != nil {
		return u
	}
	labels := strings.Split(p.Hostname(), ".")
	slices.Reverse(labels)
	key := strings.Join(labels, ",")
	if port := p.Port(); port != "" {
		key += ":" + port
	}
	path := p.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		sort.Strings(params)
		key += "?" + strings.Join(params, "&")
	}
	return key
}

// Options serializes gowarc's constructors: each one sets a global of the
// uuid package (uuid.EnableRandPool in its default options, v3.1.0), a data
// race when two run at once. Hold it to make a gowarc reader or builder.
var Options sync.Mutex

// NewFileReader is gowarc.NewWarcFileReader under Options.
func NewFileReader(path string, offset int64) (*gowarc.WarcFileReader, error) {
	Options.Lock()
	defer Options.Unlock()
	return gowarc.NewWarcFileReader(path, offset)
}

// newRecordBuilder is a record builder that adds the digests, made under
// Options.
func newRecordBuilder(t gowarc.RecordType) gowarc.WarcRecordBuilder {
	Options.Lock()
	defer Options.Unlock()
	return gowarc.NewRecordBuilder(t, gowarc.WithAddMissingDigest(true))
}

// MaxRecordedHeaderBytes bounds the headers RecordedHeader keeps, as
// FormatHeader writes them.
const MaxRecordedHeaderBytes = 64 << 10

// unrecorded are the headers a capture does not keep: hop-by-hop ones, the
// body's encoding and length (the body is kept decoded; WriteWARC states
// its length) and cookies (the fleet's own sessions with the site).
var unrecorded = []string{"Connection", "Keep-Alive", "Transfer-Encoding", "Content-Encoding", "Content-Length", "Set-Cookie",
	"Proxy-Authenticate", "Trailer", "Upgrade"}

// RecordedHeader is what a capture keeps of a response's headers: h
// without the unrecorded ones, and in name order only as many as fit in
// MaxRecordedHeaderBytes.
func RecordedHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		return http.Header{}
	}
	for _, name := range unrecorded {
		out.Del(name)
	}
	for name, vs := range out {
		out[name] = slices.DeleteFunc(vs, func(v string) bool { return strings.ContainsAny(v, "\r\n") })
	}
	size := 0
	for _, name := range sortedNames(out) {
		for i, v := range out[name] {
			if size += len(name) + len(v) + 4; size > MaxRecordedHeaderBytes {
				out[name] = out[name][:i]
				if len(out[name]) == 0 {
					delete(out, name)
				}
				break
			}
		}
	}
	return out
}

// FormatHeader writes h as "Name: value" lines, CRLF-terminated, in name
// order (a capture's headers as page_captures keeps them).
func FormatHeader(h http.Header) string {
	var b bytes.Buffer
	for _, name := range sortedNames(h) {
		for _, v := range h[name] {
			fmt.Fprintf(&b, "%s: %s\r\n", name, v)
		}
	}
	return b.String()
}

// ParseHeader reads FormatHeader's lines back.
func ParseHeader(s string) http.Header {
	h := http.Header{}
	for _, line := range strings.Split(s, "\r\n") {
		if name, v, ok := strings.Cut(line, ": "); ok {
			h.Add(name, v)
		}
	}
	return h
}

func sortedNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// httpResponseBlock is a capture as an HTTP/1.1 response: status line,
// headers in name order with Content-Length the body's, and the body.
func httpResponseBlock(c Capture) []byte {
	status := c.Status
	if status == 0 {
		status = http.StatusOK
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	h := c.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Length", strconv.Itoa(len(c.Body)))
	b.WriteString(FormatHeader(h))
	b.WriteString("\r\n")
	b.Write(c.Body)
	return b.Bytes()
}

// httpRequestBlock is the GET request a capture answered, as HTTP/1.1:
// request line, Host, then its recorded headers in name order.
func httpRequestBlock(c Capture) ([]byte, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	h := c.Request.Clone()
	h.Del("Host")
	b.WriteString(FormatHeader(h))
	b.WriteString("\r\n")
	return b.Bytes(), nil
}

// RecordedRequest is what a capture keeps of the headers of the request it
// answered: h without credentials or cookies, bounded as RecordedHeader.
func RecordedRequest(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		out.Del(name)
	}
	return RecordedHeader(out)
}

// recordID is a urn:uuid made from the parts (a name-based UUID, version
// 5 layout over SHA-1).
func recordID(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	s := h.Sum(nil)
	s[6] = s[6]&0x0f | 0x50
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// firstDate is the earliest capture's date (the warcinfo's), or the Unix
// epoch without captures.
func firstDate(captures []Capture) time.Time {
	var first time.Time
	for _, c := range captures {
		if first.IsZero() || c.Date.Before(first) {
			first = c.Date
		}
	}
	if first.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return first
}
