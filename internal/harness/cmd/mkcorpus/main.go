// Command mkcorpus builds a replay archive (see internal/crawl) from the
// Climate-FEVER dataset: one Wikipedia-like page per article holding the
// dataset's real evidence sentences, optionally plus abstract pages built
// from recorded OpenAlex and Semantic Scholar responses, and claims.jsonl
// with the selected claims.
//
//	mkcorpus -in testdata/climate-fever/climate-fever-dev.jsonl -out testdata/replay/demo -claims 12 -with-academic
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mkcorpus:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mkcorpus", flag.ContinueOnError)
	in := fs.String("in", "testdata/climate-fever/climate-fever-dev.jsonl", "Climate-FEVER JSONL file")
	out := fs.String("out", "", "output directory for the replay archive (required)")
	claims := fs.Int("claims", 0, "use only the first N records (0 = all)")
	withAcademic := fs.Bool("with-academic", false, "add OpenAlex and Semantic Scholar abstract pages")
	fixtures := fs.String("fixtures", "testdata/api-fixtures", "directory of recorded academic API responses (with -with-academic)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	if *claims < 0 {
		return fmt.Errorf("-claims must be >= 0")
	}
	records, err := corpus.ReadClimateFever(*in)
	if err != nil {
		return err
	}
	if *claims > 0 && *claims < len(records) {
		records = records[:*claims]
	}
	pages, err := corpus.BuildClimateFever(records, corpus.Options{
		OutDir:               *out,
		WithAcademic:         *withAcademic,
		OpenAlexWork:         filepath.Join(*fixtures, "openalex", "W2741809807.json"),
		SemanticScholarPaper: filepath.Join(*fixtures, "semantic-scholar", "Paper.json"),
	})
	if err != nil {
		return err
	}
	if err := corpus.WriteClaims(filepath.Join(*out, "claims.jsonl"), records); err != nil {
		return err
	}
	if err := corpus.WriteTargets(filepath.Join(*out, corpus.TargetsFile), pages); err != nil {
		return err
	}
	var bytes int
	for _, p := range pages {
		bytes += len(p.Body)
	}
	fmt.Fprintf(stdout, "wrote %d pages (%d bytes of HTML) and %d claims to %s\n", len(pages), bytes, len(records), *out)
	return nil
}
