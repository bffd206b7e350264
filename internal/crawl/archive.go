package crawl

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gowarc "github.com/nlnwa/gowarc/v3"

	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// Archive is a replay archive opened for reading. It is either WARC files
// (*.warc.gz or *.warc in the directory: the web-archiving standard, as
// Heritrix, Browsertrix, wget --warc-file and the fleet's own export,
// internal/warc, write it) or, in the older format, manifest.jsonl naming one file per body.
// Only WARC response records are replayed (no revisit, request or
// resource records); of several responses for one URL, the last one read
// wins, as in a crawl that saw the page again.
type Archive struct {
	dir         string
	headerBytes int // HTTP header bytes of the responses held
	entries     []ArchiveEntry
	byURL       map[string]int // normalized URL → index in entries
}

// ArchiveEntry is one recorded response of an Archive.
type ArchiveEntry struct {
	URL    string // as recorded
	Status int
	Header http.Header
	file   string // the body's file (manifest) or the WARC file, relative to the archive; "" for an empty body
	warc   bool   // file is a WARC file and offset the record's
	offset int64
}

// ContentType is the recorded Content-Type.
func (e ArchiveEntry) ContentType() string { return e.Header.Get("Content-Type") }

// Archive bounds: a WARC archive of more responses, with a response whose
// HTTP headers are larger (the fetcher bounds what it takes of them, as
// live), or with more header bytes in all (they are held in memory) is
// refused when it is opened.
const (
	MaxArchiveRecords      = 1_000_000
	maxArchiveHeaderBytes  = 2 << 20
	maxArchiveHeadersTotal = 256 << 20
)

// OpenArchive opens the replay archive in dir: its manifest.jsonl when it
// has one (ReadManifest), else every *.warc.gz and *.warc file in it, in
// name order. A malformed record, a target URI that does not normalize or
// an archive past its bounds is an error naming the file and offset.
func OpenArchive(dir string) (*Archive, error) {
	a := &Archive{dir: dir, byURL: map[string]int{}}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		list, err := ReadManifest(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			h := make(http.Header, len(e.Headers)+1)
			for k, v := range e.Headers {
				h.Set(k, v)
			}
			if e.ContentType != "" {
				h.Set("Content-Type", e.ContentType)
			}
			a.add(ArchiveEntry{URL: e.URL, Status: e.Status, Header: h, file: e.File})
		}
		return a, nil
	}
	files, err := warcFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		if err := a.readWARC(name); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// warcFiles are the WARC files of dir, in name order; none is an error.
func warcFiles(dir string) ([]string, error) {
	list, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	var out []string
	for _, f := range list {
		if n := f.Name(); f.Type().IsRegular() && (strings.HasSuffix(n, ".warc.gz") || strings.HasSuffix(n, ".warc")) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("replay archive %s: neither %s nor a .warc.gz or .warc file", dir, ManifestFile)
	}
	sort.Strings(out)
	return out, nil
}

// readWARC indexes the response records of one WARC file.
func (a *Archive) readWARC(name string) error {
	r, err := warc.NewFileReader(filepath.Join(a.dir, name), 0)
	if err != nil {
		return fmt.Errorf("replay archive %s: %w", name, err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("replay archive %s at offset %d: %w", name, rec.Offset, err)
		}
		entry, headerBytes, ok, err := responseEntry(rec)
		rec.Close()
		if err != nil {
			return fmt.Errorf("replay archive %s at offset %d: %w", name, rec.Offset, err)
		}
		if !ok {
			continue
		}
		if len(a.entries) >= MaxArchiveRecords {
			return fmt.Errorf("replay archive %s: more than %d responses", name, MaxArchiveRecords)
		}
		if a.headerBytes += headerBytes; a.headerBytes > maxArchiveHeadersTotal {
			return fmt.Errorf("replay archive %s: more than %d bytes of HTTP headers", name, maxArchiveHeadersTotal)
		}
		entry.file, entry.warc, entry.offset = name, true, rec.Offset
		a.add(entry)
	}
}

// responseEntry is a WARC record's response, if it is an HTTP response,
// and the size of its HTTP headers.
func responseEntry(rec gowarc.Record) (ArchiveEntry, int, bool, error) {
	wr := rec.WarcRecord
	if wr == nil || wr.Type() != gowarc.Response {
		return ArchiveEntry{}, 0, false, nil
	}
	uri := wr.WarcHeader().Get(gowarc.WarcTargetURI)
	if _, err := ident.NormalizeURL(uri); err != nil {
		return ArchiveEntry{}, 0, false, fmt.Errorf("WARC-Target-URI: %w", err)
	}
	block, ok := wr.Block().(gowarc.HttpResponseBlock)
	if !ok {
		return ArchiveEntry{}, 0, false, nil // a response of another protocol (dns:, ftp:)
	}
	n := len(block.ProtocolHeaderBytes())
	if n > maxArchiveHeaderBytes {
		return ArchiveEntry{}, 0, false, fmt.Errorf("%s: HTTP headers of %d bytes, more than %d", uri, n, maxArchiveHeaderBytes)
	}
	status := block.HttpStatusCode()
	if status < 100 || status > 999 {
		return ArchiveEntry{}, 0, false, fmt.Errorf("%s: invalid status %d", uri, status)
	}
	h := http.Header{}
	if rh := block.HttpHeader(); rh != nil {
		h = rh.Clone()
	}
	return ArchiveEntry{URL: uri, Status: status, Header: h}, n, true, nil
}

func (a *Archive) add(e ArchiveEntry) {
	norm, _ := ident.NormalizeURL(e.URL) // checked by the reader
	if i, ok := a.byURL[norm]; ok {
		a.entries[i] = e
		return
	}
	a.byURL[norm] = len(a.entries)
	a.entries = append(a.entries, e)
}

// Entries are the archive's responses, one per URL, in the order read.
func (a *Archive) Entries() []ArchiveEntry { return a.entries }

// Len is the number of URLs in the archive.
func (a *Archive) Len() int { return len(a.entries) }

// Lookup is the response recorded for rawURL (by NormalizeURL); for
// /robots.txt the other scheme (http↔https) is tried as well.
func (a *Archive) Lookup(rawURL string) (ArchiveEntry, bool) {
	norm, err := ident.NormalizeURL(rawURL)
	if err != nil {
		return ArchiveEntry{}, false
	}
	if i, ok := a.byURL[norm]; ok {
		return a.entries[i], true
	}
	for _, swap := range [][2]string{{"https://", "http://"}, {"http://", "https://"}} {
		if rest, ok := strings.CutPrefix(norm, swap[0]); ok && strings.HasSuffix(rest, "/robots.txt") {
			if i, ok := a.byURL[swap[1]+rest]; ok {
				return a.entries[i], true
			}
		}
	}
	return ArchiveEntry{}, false
}

// Body opens an entry's body for streaming, and its length when known
// (-1 otherwise). The caller bounds what it reads and closes it.
func (a *Archive) Body(e ArchiveEntry) (io.ReadCloser, int64, error) {
	if e.file == "" {
		return io.NopCloser(strings.NewReader("")), 0, nil
	}
	path := filepath.Join(a.dir, filepath.FromSlash(e.file))
	if !e.warc {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, fmt.Errorf("replay archive: %s: %w", e.URL, err)
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("replay archive: %s: %w", e.URL, err)
		}
		return f, info.Size(), nil
	}
	r, err := warc.NewFileReader(path, e.offset)
	if err != nil {
		return nil, 0, fmt.Errorf("replay archive: %s: %w", e.URL, err)
	}
	rec, err := r.Next()
	if err != nil {
		r.Close()
		return nil, 0, fmt.Errorf("replay archive: %s at offset %d: %w", e.URL, e.offset, err)
	}
	block, ok := rec.WarcRecord.Block().(gowarc.HttpResponseBlock)
	if !ok {
		rec.Close()
		r.Close()
		return nil, 0, fmt.Errorf("replay archive: %s at offset %d: not an HTTP response", e.URL, e.offset)
	}
	payload, err := block.PayloadBytes()
	if err != nil {
		rec.Close()
		r.Close()
		return nil, 0, fmt.Errorf("replay archive: %s: %w", e.URL, err)
	}
	size := int64(-1)
	if n, err := strconv.ParseInt(e.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		size = n
	}
	return warcBody{Reader: payload, close: func() error { rec.Close(); return r.Close() }}, size, nil
}

// warcBody is a WARC record's payload; closing it closes the record and
// its file.
type warcBody struct {
	io.Reader
	close func() error
}

func (b warcBody) Close() error { return b.close() }
