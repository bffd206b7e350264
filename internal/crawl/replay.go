package crawl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// ManifestFile is the name of the index file of a replay archive.
const ManifestFile = "manifest.jsonl"

// ManifestEntry is one line of a replay archive's manifest.jsonl.
type ManifestEntry struct {
	URL         string            `json:"url"`
	Status      int               `json:"status,omitempty"`       // 0 means 200
	ContentType string            `json:"content_type,omitempty"` // full header value, e.g. "text/html; charset=utf-8"
	File        string            `json:"file,omitempty"`         // body, relative to the archive dir; empty body when ""
	Headers     map[string]string `json:"headers,omitempty"`      // extra response headers (Retry-After, Location, …)
}

// ReadManifest reads and validates dir/manifest.jsonl. Blank lines are
// skipped; a malformed line, a URL that does not normalise, a duplicate URL
// (after normalisation) or a file path escaping dir is an error naming the line.
func ReadManifest(dir string) ([]ManifestEntry, error) {
	f, err := os.Open(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	defer f.Close()
	var out []ManifestEntry
	seen := make(map[string]int)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var e ManifestEntry
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("replay archive %s line %d: %w", ManifestFile, line, err)
		}
		norm, err := ident.NormalizeURL(e.URL)
		if err != nil {
			return nil, fmt.Errorf("replay archive %s line %d: %w", ManifestFile, line, err)
		}
		if prev, dup := seen[norm]; dup {
			return nil, fmt.Errorf("replay archive %s line %d: URL %s already listed on line %d", ManifestFile, line, norm, prev)
		}
		seen[norm] = line
		if e.Status == 0 {
			e.Status = http.StatusOK
		}
		if e.Status < 100 || e.Status > 999 {
			return nil, fmt.Errorf("replay archive %s line %d: invalid status %d", ManifestFile, line, e.Status)
		}
		if e.File != "" && !filepath.IsLocal(filepath.FromSlash(e.File)) {
			return nil, fmt.Errorf("replay archive %s line %d: file %q must be a relative path inside the archive", ManifestFile, line, e.File)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay archive %s: %w", ManifestFile, err)
	}
	return out, nil
}

// ReplayTransport is an http.RoundTripper that answers from a replay archive
// (OpenArchive: WARC files, or the older manifest.jsonl) and never touches
// the network. Requests are looked up by NormalizeURL of the request URL; a
// URL not in the archive gets a 404 (so a missing robots.txt means
// "everything allowed"). For /robots.txt the other scheme (http↔https) is
// tried as well. Only GET and HEAD are served.
type ReplayTransport struct {
	archive *Archive
}

// NewReplayTransport loads the archive in dir (see OpenArchive).
func NewReplayTransport(dir string) (*ReplayTransport, error) {
	a, err := OpenArchive(dir)
	if err != nil {
		return nil, err
	}
	return &ReplayTransport{archive: a}, nil
}

// Len returns the number of URLs in the archive.
func (t *ReplayTransport) Len() int { return t.archive.Len() }

// Has reports whether the archive holds a response for rawURL.
func (t *ReplayTransport) Has(rawURL string) bool {
	_, ok := t.archive.Lookup(rawURL)
	return ok
}

// RoundTrip serves req from the archive.
func (t *ReplayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return replayResponse(req, http.StatusMethodNotAllowed, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, []byte("replay archive serves GET and HEAD only\n")), nil
	}
	e, ok := t.archive.Lookup(req.URL.String())
	if !ok {
		return replayResponse(req, http.StatusNotFound, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, []byte("not in replay archive\n")), nil
	}
	// Streamed, not read whole: the fetcher's limits count what is read.
	body, size, err := t.archive.Body(e)
	if err != nil {
		return nil, err
	}
	resp := replayResponse(req, e.Status, e.Header.Clone(), nil)
	resp.ContentLength = size
	if size >= 0 {
		resp.Header.Set("Content-Length", strconv.FormatInt(size, 10))
	} else {
		resp.Header.Del("Content-Length")
	}
	if req.Method == http.MethodHead {
		body.Close()
	} else {
		resp.Body = body
	}
	return resp, nil
}

func replayResponse(req *http.Request, status int, h http.Header, body []byte) *http.Response {
	n := len(body)
	h.Set("Content-Length", strconv.Itoa(n))
	if req.Method == http.MethodHead {
		body = nil
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(n),
		Request:       req,
	}
}
