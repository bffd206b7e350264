package bench

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
)

// The worker's defaults (EVF_FETCH_MAX_BYTES, EVF_PAGE_MAX_ELEMENTS).
const (
	testMaxBytes    = 5 << 20
	testMaxElements = 50000
)

// TestHostilePagesStayUnderTheLimits: every page is refused by nothing but
// its shape: its body (decoded, but for the gzip bomb) is under the body
// limit and its start tags under the element limit, and the shapes are the
// sizes the section promises.
func TestHostilePagesStayUnderTheLimits(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	pages := HostilePages(testMaxBytes, testMaxElements)
	byName := map[string]HostilePage{}
	for _, p := range pages {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			body := p.Page.Body
			if len(body) > testMaxBytes-hostileMargin {
				t.Fatalf("body of %d bytes, over the limit of %d less the margin", len(body), testMaxBytes)
			}
			if p.Page.Headers["Content-Encoding"] == "gzip" {
				decoded := gunzipCount(t, body)
				if p.Name == "gzip-bomb" {
					if decoded != 200<<20 || len(body) > 300<<10 {
						t.Fatalf("gzip bomb: %d bytes decode to %d, want about 200 KiB to 200 MiB", len(body), decoded)
					}
					return
				}
				if decoded > testMaxBytes-hostileMargin {
					t.Fatalf("decodes to %d bytes, over the body limit", decoded)
				}
				return
			}
			if p.Page.Status >= 300 && p.Page.Status < 400 {
				if p.Page.Headers["Location"] == "" {
					t.Fatal("a redirect without Location")
				}
				return
			}
			if err := extract.CheckElements(body, testMaxElements); err != nil {
				t.Fatalf("refused before parsing: %v", err)
			}
		})
		byName[p.Name] = p
	}
	sizes := map[string][2]int{ // name: body bytes at least, at most
		"formatting-bomb":     {160_000, 170_000},
		"formatting-bomb-max": {5<<20 - 200_000, 5<<20 - hostileMargin},
		"end-tag-flood":       {4_800_000, 4_810_000},
		"comment-flood":       {4_550_000, 4_560_000},
		"deep-divs":           {225_000, 230_000},
		"attribute-flood":     {5<<20 - 100, 5<<20 - hostileMargin},
		"text-node":           {5<<20 - 100, 5<<20 - hostileMargin},
		"huge-title":          {4 << 20, 4<<20 + 2000},
		"meta-dois":           {1_000_000, 1_200_000},
		"misnested":           {3_300_000, 3_400_000},
	}
	for name, want := range sizes {
		n := len(byName[name].Page.Body)
		if n < want[0] || n > want[1] {
			t.Errorf("%s: %d bytes, want %d to %d", name, n, want[0], want[1])
		}
	}
}

// TestAtOncePagesAreWhatTheRunPromises: the misnested pages are refused
// too_many_elements by the token pass, and the pages of 49,000 paragraphs
// (about 5.1 MB) pass every limit and are extracted, at the worker's
// defaults.
func TestAtOncePagesAreWhatTheRunPromises(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	u, _ := url.Parse("https://at-once.example.org/")
	lim := extract.Limits{MaxElements: testMaxElements}
	pages := AtOncePages(testMaxBytes, testMaxElements)
	if len(pages) != 2*atOnceEach {
		t.Fatalf("%d pages, want %d", len(pages), 2*atOnceEach)
	}
	for _, p := range pages {
		if len(p.Page.Body) > testMaxBytes-hostileMargin {
			t.Errorf("%s: body of %d bytes, over the limit", p.Name, len(p.Page.Body))
		}
		if p.Ordinary && (len(p.Page.Body) < 5_000_000 || strings.Count(string(p.Page.Body), "<p>") < 49_000) {
			t.Errorf("%s: %d bytes, %d paragraphs; want about 5.1 MB of 49,000", p.Name, len(p.Page.Body), strings.Count(string(p.Page.Body), "<p>"))
		}
	}
	// One page of each kind through the extractor (the copies share a shape).
	for _, p := range pages[:2] {
		doc, err := extract.FromHTMLWithLimits(p.Page.Body, "text/html", u, lim)
		switch {
		case p.Ordinary && (err != nil || len(doc.Text) < 4_000_000):
			t.Errorf("%s: %d bytes of text, %v; want it extracted", p.Name, len(doc.Text), err)
		case !p.Ordinary && !errors.Is(err, extract.ErrTooManyElements):
			t.Errorf("%s: %v, want too_many_elements", p.Name, err)
		}
	}
}

func gunzipCount(t *testing.T, body []byte) int64 {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHostilePagesAreDeterministic: the same limits give the same pages,
// byte for byte, and they make a valid replay archive.
func TestHostilePagesAreDeterministic(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	digest := func(pages []HostilePage) [][32]byte {
		var out [][32]byte
		for _, p := range pages {
			h := sha256.New()
			h.Write([]byte(p.Name + "\x00" + p.Page.URL + "\x00" + p.Page.ContentType + "\x00"))
			for _, k := range []string{"Content-Encoding", "Location"} {
				h.Write([]byte(p.Page.Headers[k] + "\x00"))
			}
			h.Write(p.Page.Body)
			out = append(out, [32]byte(h.Sum(nil)))
		}
		return out
	}
	a, b := digest(HostilePages(testMaxBytes, testMaxElements)), digest(HostilePages(testMaxBytes, testMaxElements))
	if len(a) != len(b) {
		t.Fatalf("%d pages, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("page %d differs between two generations", i)
		}
	}
	pages := HostilePages(1<<20, 5000)
	var cps []corpus.Page
	for _, p := range pages {
		cps = append(cps, p.Page)
	}
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, cps); err != nil {
		t.Fatal(err)
	}
	archive, err := crawl.OpenArchive(dir)
	if err != nil {
		t.Fatal(err)
	}
	if archive.Len() != len(pages) {
		t.Fatalf("archive lists %d pages, want %d", archive.Len(), len(pages))
	}
	for _, p := range pages {
		if len(p.Page.Body) > 1<<20-hostileMargin {
			t.Errorf("%s: %d bytes under a 1 MiB limit", p.Name, len(p.Page.Body))
		}
		if p.Page.Status == 0 && p.Page.Headers["Content-Encoding"] == "" {
			if err := extract.CheckElements(p.Page.Body, 5000); err != nil {
				t.Errorf("%s: %v under a limit of 5,000 elements", p.Name, err)
			}
		}
	}
}

// TestIngestGroupIsTheCharts: the section's worker is configured as the
// chart's ingest group (queues, concurrency, memory limit).
func TestIngestGroupIsTheCharts(t *testing.T) {
	t.Parallel()
	root, err := repodata.Root()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "deploy", "helm", "evidencefleet", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Groups []struct {
			Name        string         `json:"name"`
			Queues      []string       `json:"queues"`
			Concurrency map[string]int `json:"concurrency"`
			// the group's own size, which a top-level, groupDefaults or
			// group resources replace
			Resources struct {
				Limits struct {
					Memory string `json:"memory"`
				} `json:"limits"`
			} `json:"defaultResources"`
		} `json:"groups"`
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	for _, g := range values.Groups {
		if g.Name != "ingest" {
			continue
		}
		env := ingestEnv()
		want := []string{"EVF_QUEUES=target,embed", "EVF_TARGET_WORKERS=4", "EVF_EMBED_WORKERS=2", "GOMEMLIMIT=234881024"}
		if len(g.Queues) != 2 || g.Queues[0] != "target" || g.Queues[1] != "embed" ||
			g.Concurrency["target"] != 4 || g.Concurrency["embed"] != 2 || g.Resources.Limits.Memory != "256Mi" {
			t.Fatalf("the chart's ingest group changed: %+v; update ingestEnv and ingestMemoryLimit", g)
		}
		for i := range want {
			if env[i] != want[i] {
				t.Errorf("worker env %q, want %q", env[i], want[i])
			}
		}
		return
	}
	t.Fatal("no ingest group in values.yaml")
}
