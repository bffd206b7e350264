package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// Page is one recorded response of a replay archive (status 200).
type Page struct {
	URL         string
	ContentType string // full Content-Type header value
	Body        []byte
	Status      int               // 0 means 200
	Headers     map[string]string // extra response headers (Retry-After, Content-Encoding, …)
}

// ArchiveFile is the WARC file WriteArchive writes in its directory.
const ArchiveFile = "archive.warc.gz"

// CaptureDate is the WARC-Date of every page WriteArchive records: the
// archive is built, not crawled, and the same pages give the same bytes.
var CaptureDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// WriteArchive writes pages as a replay archive in dir (created if needed):
// one WARC file, ArchiveFile, of one response record per page sorted by
// URL, written atomically (warc.Write; the fleet's replay mode and any
// WARC tool read it). An archive of the older layout in dir (manifest.jsonl
// and the body files it names) is removed; nothing else in dir is touched.
// URLs must be valid http(s) URLs and unique after ident.NormalizeURL.
func WriteArchive(dir string, pages []Page) error {
	type item struct {
		norm string
		page Page
	}
	items := make([]item, 0, len(pages))
	seen := make(map[string]bool, len(pages))
	for _, p := range pages {
		norm, err := ident.NormalizeURL(p.URL)
		if err != nil {
			return fmt.Errorf("write archive: %w", err)
		}
		if seen[norm] {
			return fmt.Errorf("write archive: duplicate URL %s", norm)
		}
		seen[norm] = true
		items = append(items, item{norm, p})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].norm < items[j].norm })
	captures := make([]warc.Capture, len(items))
	for i, it := range items {
		h := http.Header{}
		for k, v := range it.page.Headers {
			h.Set(k, v)
		}
		ct := it.page.ContentType
		if ct == "" {
			ct = HTMLContentType
		}
		h.Set("Content-Type", ct)
		captures[i] = warc.Capture{URL: it.page.URL, Date: CaptureDate, Status: it.page.Status, Header: h, Body: it.page.Body}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var file bytes.Buffer
	if err := warc.Write(&file, "evidencefleet corpus", captures); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, ArchiveFile), file.Bytes()); err != nil {
		return err
	}
	return removeManifestArchive(dir)
}

// TargetsFile lists an archive's pages as url targets, one URL a line
// (`enqueue target add --file`), robots.txt left out.
const TargetsFile = "targets.txt"

// WriteTargets writes the pages' URLs to name, one a line, in the
// archive's order (by normalized URL), robots.txt left out.
func WriteTargets(name string, pages []Page) error {
	urls := make([]string, 0, len(pages))
	for _, p := range pages {
		if !strings.HasSuffix(p.URL, "/robots.txt") {
			urls = append(urls, p.URL)
		}
	}
	sort.Slice(urls, func(i, j int) bool {
		a, _ := ident.NormalizeURL(urls[i])
		b, _ := ident.NormalizeURL(urls[j])
		return a < b
	})
	return writeFileAtomic(name, []byte(strings.Join(urls, "\n")+"\n"))
}

// removeManifestArchive removes an archive of the older layout from dir:
// manifest.jsonl and the body files it names (and their directories, when
// that leaves them empty).
func removeManifestArchive(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, crawl.ManifestFile)); err != nil {
		return nil
	}
	old, err := crawl.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("write archive: the older manifest: %w", err)
	}
	for _, e := range old {
		if e.File == "" {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(e.File))
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		_ = os.Remove(filepath.Dir(full)) // only succeeds when empty
	}
	return os.Remove(filepath.Join(dir, crawl.ManifestFile))
}

func writeFileAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// Options configures BuildClimateFever.
type Options struct {
	// OutDir, when set, receives the replay archive (WriteArchive).
	OutDir string
	// WithAcademic adds the OpenAlex and Semantic Scholar abstract pages.
	WithAcademic bool
	// OpenAlexWork and SemanticScholarPaper are the fixture files used with
	// WithAcademic (recorded API responses, e.g. under
	// testdata/api-fixtures); both are required then.
	OpenAlexWork, SemanticScholarPaper string
}

// BuildClimateFever renders the records' Wikipedia articles (RenderArticles)
// and, with opts.WithAcademic, the academic abstract pages, then writes them
// to opts.OutDir when it is set. It returns the pages.
func BuildClimateFever(records []Record, opts Options) ([]Page, error) {
	pages := RenderArticles(records)
	if opts.WithAcademic {
		if opts.OpenAlexWork == "" || opts.SemanticScholarPaper == "" {
			return nil, fmt.Errorf("with academic pages, both the OpenAlex work and the Semantic Scholar paper file are required")
		}
		w, err := ReadOpenAlexWork(opts.OpenAlexWork)
		if err != nil {
			return nil, err
		}
		sp, err := ReadSemanticScholarPaper(opts.SemanticScholarPaper)
		if err != nil {
			return nil, err
		}
		pages = append(pages, OpenAlexPage(w), SemanticScholarPage(sp))
	}
	if opts.OutDir != "" {
		if err := WriteArchive(opts.OutDir, pages); err != nil {
			return nil, err
		}
	}
	return pages, nil
}
