// Command extracteval scores main-text extraction on the development sets in
// testdata/extract-dev (`make extract-eval`): for each extractor, on
// Mozilla Readability's test pages, token-shingle precision, recall and F1
// on the tune half, the check half and all pages, the median time per page,
// and the pages where the fleet's extraction scores worst; on trafilatura's
// evaluation pages, the share of hand-picked main-text snippets found and
// boilerplate snippets left out. -json writes the figures as JSON instead.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/extracteval"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "extracteval:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("extracteval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("pages", "testdata/extract-dev/readability", "directory of <name>/source.html.gz and expected.html.gz")
	snipDir := fs.String("snippets", "testdata/extract-dev/trafilatura", "directory of snippets.jsonl and pages/<file>.gz (\"\" skips them)")
	worst := fs.Int("worst", 12, "list this many of the fleet's lowest-scoring pages")
	asJSON := fs.Bool("json", false, "write the figures as JSON")
	limit := fs.Int("limit", 0, "use only the first N pages of each set (0: all)")
	only := fs.String("extractors", "fleet,readability,go-trafilatura", "comma-separated extractors to run, the fleet first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pages, err := extracteval.LoadPages(*dir, *limit)
	if err != nil {
		return err
	}
	var exs []extracteval.Extractor
	for _, ex := range []extracteval.Extractor{
		extracteval.Fleet(config.Defaults().PageMaxElements),
		extracteval.Readability(),
		trafilaturaExtractor(),
	} {
		if slices.Contains(strings.Split(*only, ","), ex.Name) {
			exs = append(exs, ex)
		}
	}
	if len(exs) == 0 {
		return fmt.Errorf("-extractors %q names none of fleet, readability, go-trafilatura", *only)
	}
	results, err := extracteval.Run(pages, exs)
	if err != nil {
		return err
	}
	var snips []extracteval.SnippetResult
	if *snipDir != "" {
		sp, err := extracteval.LoadSnippetPages(*snipDir, *limit)
		if err != nil {
			return err
		}
		if snips, err = extracteval.RunSnippets(sp, exs); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"readability_pages": results, "trafilatura_snippets": snips})
	}
	if err := writeTables(stdout, results, *worst); err != nil {
		return err
	}
	return writeSnippets(stdout, snips)
}

func writeSnippets(w io.Writer, results []extracteval.SnippetResult) error {
	if len(results) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ntrafilatura's evaluation pages: snippets marked main text (found: TP) and boilerplate (found: FP)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "extractor\thalf\tsnippets\tprecision\trecall\tF1\taccuracy")
	for _, r := range results {
		for _, h := range []string{"tune", "check", "all"} {
			c := r.Halves[h]
			p, rc, f1, acc := c.Scores()
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\n", r.Extractor, h, c.TP+c.FN+c.FP+c.TN, p, rc, f1, acc)
		}
	}
	return tw.Flush()
}

func writeTables(w io.Writer, results []extracteval.Result, worst int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Mozilla Readability's test pages: token-shingle precision, recall and F1 against the expected main text")
	fmt.Fprintln(tw, "extractor\thalf\tpages\tprecision\trecall\tF1\tms/page (median)")
	for _, r := range results {
		for _, h := range []string{"tune", "check", "all"} {
			s := r.Halves[h]
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.1f\n", r.Extractor, h, s.Pages, s.Precision, s.Recall, s.F1, r.MsPerPage)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fleet := results[0]
	fmt.Fprintf(w, "\nworst %d pages of %s:\n", worst, fleet.Extractor)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "page\thalf\tprecision\trecall\tF1"
	for _, r := range results[1:] {
		head += "\t" + r.Extractor + " F1"
	}
	fmt.Fprintln(tw, head)
	for _, p := range fleet.Worst(worst) {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f", p.Page, p.Half, p.Prec, p.Recall, p.F1)
		for _, r := range results[1:] {
			fmt.Fprintf(tw, "\t%.3f", r.F1Of(p.Page))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// trafilaturaExtractor is go-trafilatura as its authors benchmark it
// (fallbacks to readability and DOM Distiller on), comments and date
// scanning off. It is a comparison only: the product does not link it (its
// date parser alone costs every process 0.17 s and 78 MB of allocation at
// start-up).
func trafilaturaExtractor() extracteval.Extractor {
	return extracteval.Extractor{Name: "go-trafilatura", Extract: func(src []byte, u *url.URL) (string, error) {
		r, err := trafilatura.Extract(bytes.NewReader(src), trafilatura.Options{
			OriginalURL: u, EnableFallback: true, ExcludeComments: true,
			HtmlDateMode: trafilatura.Disabled,
		})
		if err != nil || r == nil {
			return "", nil // no article is an empty extraction
		}
		return r.ContentText, nil
	}}
}
