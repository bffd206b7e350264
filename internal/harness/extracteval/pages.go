package extracteval

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is one development page: its saved HTML and the main text expected
// from it.
type Page struct {
	Name     string
	Half     string // "tune" or "check" (see HalfOf)
	Source   []byte // the page as saved, undecoded
	Expected string // the expected main text, one line per block
}

// maxPageBytes bounds one decompressed file of the set.
const maxPageBytes = 32 << 20

// HalfOf assigns a page to the tune half or the check half by the first
// byte of the SHA-256 of its name: a fixed split that no rule can lean on.
func HalfOf(name string) string {
	if sum := sha256.Sum256([]byte(name)); sum[0]%2 == 0 {
		return "tune"
	}
	return "check"
}

// LoadPages reads every <dir>/<name>/source.html.gz with its
// expected.html.gz, in name order; with limit > 0, only the first limit.
func LoadPages(dir string, limit int) ([]Page, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("extracteval: read pages: %w", err)
	}
	var pages []Page
	for _, e := range entries { // os.ReadDir sorts by name
		if !e.IsDir() {
			continue
		}
		if limit > 0 && len(pages) == limit {
			break
		}
		p, err := loadPage(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("extracteval: no pages under %s", dir)
	}
	return pages, nil
}

func loadPage(dir string) (Page, error) {
	name := filepath.Base(dir)
	src, err := readGzip(filepath.Join(dir, "source.html.gz"))
	if err != nil {
		return Page{}, err
	}
	exp, err := readGzip(filepath.Join(dir, "expected.html.gz"))
	if err != nil {
		return Page{}, err
	}
	text, err := HTMLText(exp)
	if err != nil {
		return Page{}, fmt.Errorf("extracteval: %s expected: %w", name, err)
	}
	return Page{Name: name, Half: HalfOf(name), Source: src, Expected: text}, nil
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxPageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", path, err)
	}
	if len(b) > maxPageBytes {
		return nil, fmt.Errorf("extracteval: %s: over %d bytes", path, maxPageBytes)
	}
	return b, nil
}

// HTMLText is the text of an HTML fragment as a reader sees it: the text of
// every node but scripts and styles, a line break around each block
// element and <br>, nothing between inline elements (so "a<b>b</b>" is one
// word). It is independent of the extraction it scores.
func HTMLText(b []byte) (string, error) {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
				return
			}
		}
		brk := n.Type == html.ElementNode && !inline[n.DataAtom]
		if brk {
			sb.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if brk {
			sb.WriteByte('\n')
		}
	}
	walk(doc)
	lines := strings.Split(sb.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n"), nil
}

// inline lists the phrasing elements that do not break a line.
var inline = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true,
	atom.Cite: true, atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true,
	atom.Font: true, atom.I: true, atom.Kbd: true, atom.Mark: true, atom.Q: true,
	atom.S: true, atom.Samp: true, atom.Small: true, atom.Span: true, atom.Strike: true,
	atom.Strong: true, atom.Sub: true, atom.Sup: true, atom.Time: true, atom.Tt: true,
	atom.U: true, atom.Var: true, atom.Wbr: true, atom.Img: true, atom.Picture: true,
	atom.Source: true, atom.Label: true, atom.Del: true, atom.Ins: true,
}
