package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// Page is one recorded response of a replay archive (status 200).
type Page struct {
	URL         string
	ContentType string // full Content-Type header value
	Body        []byte
	Status      int               // 0 means 200
	Headers     map[string]string // extra response headers (Retry-After, Content-Encoding, …)
}

// fileName picks the archive file for a page: <host>/<readable slug>-<hash>.html,
// unique per normalised URL and safe on any file system.
func fileName(normURL string) string {
	host := ident.Domain(normURL)
	if host == "" {
		host = "unknown"
	}
	rest := normURL
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[i+1:]
	}
	rest = strings.TrimPrefix(rest, "wiki/")
	var slug strings.Builder
	for _, r := range rest {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			slug.WriteRune(r)
		default:
			slug.WriteByte('_')
		}
		if slug.Len() >= 80 {
			break
		}
	}
	s := strings.Trim(slug.String(), "._")
	if s == "" {
		s = "index"
	}
	sum := sha256.Sum256([]byte(normURL))
	return path.Join(sanitizeHost(host), s+"-"+hex.EncodeToString(sum[:4])+".html")
}

func sanitizeHost(h string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, h)
}

// WriteArchive writes pages as a replay archive in dir (created if needed):
// one body file per page and manifest.jsonl, sorted by URL, written last and
// atomically (readers never see a manifest pointing at missing files). Files listed by a previous manifest in dir that the new one no
// longer uses are removed; nothing else in dir is touched. URLs must be valid
// http(s) URLs and unique after ident.NormalizeURL.
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

	var old []crawl.ManifestEntry
	if _, err := os.Stat(filepath.Join(dir, crawl.ManifestFile)); err == nil {
		if old, err = crawl.ReadManifest(dir); err != nil {
			return fmt.Errorf("write archive: existing manifest: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var manifest bytes.Buffer
	enc := json.NewEncoder(&manifest)
	enc.SetEscapeHTML(false)
	used := make(map[string]bool, len(items))
	for _, it := range items {
		name := fileName(it.norm)
		used[name] = true
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, it.page.Body, 0o644); err != nil {
			return err
		}
		ct := it.page.ContentType
		if ct == "" {
			ct = HTMLContentType
		}
		status := it.page.Status
		if status == 0 {
			status = 200
		}
		if err := enc.Encode(crawl.ManifestEntry{URL: it.page.URL, Status: status, ContentType: ct, File: name, Headers: it.page.Headers}); err != nil {
			return err
		}
	}
	if err := writeFileAtomic(filepath.Join(dir, crawl.ManifestFile), manifest.Bytes()); err != nil {
		return err
	}
	for _, e := range old {
		if e.File == "" || used[e.File] {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(e.File))
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		_ = os.Remove(filepath.Dir(full)) // only succeeds when empty
	}
	return nil
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
