// Command configdoc writes the configuration reference of
// docs/configuration.md from the env struct of internal/config (its
// envconfig, default and desc tags, as `worker config --markdown` prints
// them): the table between the document's two markers is replaced, and the
// prose around it is left as it is. `make configdoc` runs it; a test fails
// when the document is not what it would write.
//
//	go run ./internal/harness/cmd/configdoc [-file docs/configuration.md] [-check]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/config"
)

// The markers around the generated table. They are HTML comments, which
// Markdown does not show.
const (
	Begin = "<!-- configdoc: begin (generated from internal/config by `make configdoc`; do not edit) -->\n"
	End   = "<!-- configdoc: end -->\n"
)

// Render returns doc with the text between its markers replaced by the
// configuration table. doc must hold each marker once, Begin before End,
// each on a line of its own.
func Render(doc []byte) ([]byte, error) {
	if bytes.Count(doc, []byte(Begin)) != 1 || bytes.Count(doc, []byte(End)) != 1 {
		return nil, fmt.Errorf("the document must hold each marker once, on a line of its own: %q and %q",
			strings.TrimSuffix(Begin, "\n"), strings.TrimSuffix(End, "\n"))
	}
	b, e := bytes.Index(doc, []byte(Begin)), bytes.Index(doc, []byte(End))
	if e < b || (b > 0 && doc[b-1] != '\n') || (e > 0 && doc[e-1] != '\n') {
		return nil, errors.New("the markers must each start a line, the begin marker first")
	}
	var table bytes.Buffer
	if err := config.UsageMarkdown(&table); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(doc[:b+len(Begin)])
	out.WriteString("\n")
	out.Write(table.Bytes())
	out.WriteString("\n")
	out.Write(doc[e:])
	return out.Bytes(), nil
}

func main() {
	file := flag.String("file", "docs/configuration.md", "the document to write")
	check := flag.Bool("check", false, "write nothing: exit 1 when the document is not what configdoc would write")
	flag.Parse()
	if err := run(*file, *check); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}

func run(file string, check bool) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := Render(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	switch {
	case bytes.Equal(doc, out):
		return nil
	case check:
		return fmt.Errorf("%s is stale: run make configdoc", file)
	}
	return os.WriteFile(file, out, 0o644)
}
