package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// exitInvalidCitations is cite check's exit code when the text cites an id
// the task does not have, or writes a citation the check cannot read.
const exitInvalidCitations = 3

// citeCmd validates citations against a task's evidence (seed 001:
// "citations are not generated, they're validated").
func (a *app) citeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "cite", Short: "Check the [E…] citations of a text written from a task's evidence"}
	cmd.AddCommand(a.citeCheckCmd())
	return cmd
}

// citeCheckJSON is cite check's --json output: the task, the file and the
// check's result.
type citeCheckJSON struct {
	TaskID int64  `json:"task_id"`
	File   string `json:"file"`
	*citation.Result
}

func (a *app) citeCheckCmd() *cobra.Command {
	var taskID int64
	var file string
	c := &cobra.Command{
		Use:   "check",
		Short: "Check a text's [E…] citations against the task's claims: invalid ids, uncited ids, coverage, uncited factual sentences",
		Long: `Check a text's citations against the task's claims (E1 is its hypothesis,
then the claims in E-number order). A citation is [E1] or [E1,E5,E9], spaces
allowed around the ids and commas. The report gives the ids cited, the ids
the task does not have (with line:column), malformed citations such as the
range [E1-E3], the task's ids left uncited, the coverage ("5 of 15") and the
factual sentences that cite no id of the task (internal/citation's package
doc states the sentence rule). The text is at most 1 MiB.

Exit status: 0 every citation is an id of the task, 3 an id is not the
task's or a citation is malformed, 1 the check could not run (a missing
task, a database error), 2 usage. Uncited ids and sentences are reported
and do not change the exit status.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case taskID <= 0:
				return usageErr("--task is required")
			case file == "":
				return usageErr("--file is required: the text to check, or - for standard input")
			}
			text, err := readText(file, cmd.InOrStdin())
			if err != nil {
				return usageErr("%v", err)
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			res, err := a.svc.CiteCheck(ctx, a.org, taskID, text)
			if err != nil {
				return err
			}
			if err := a.emit(citeCheckJSON{TaskID: taskID, File: file, Result: res}, func(w io.Writer) {
				writeCiteCheck(w, taskID, res)
			}); err != nil {
				return err
			}
			if !res.OK {
				return &exitError{code: exitInvalidCitations, msg: citeFailure(taskID, res)}
			}
			return nil
		},
	}
	c.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	c.Flags().StringVar(&file, "file", "", "the text to check; - reads standard input (required)")
	return c
}

// readText reads the text to check from path, or from stdin for "-", up
// to citation.MaxTextBytes; text that is not UTF-8 is refused naming its
// line.
func readText(path string, stdin io.Reader) (string, error) {
	name, r := "standard input", stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		name, r = path, f
	}
	b, err := io.ReadAll(io.LimitReader(r, citation.MaxTextBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("read %s: %w", name, err)
	case len(b) > citation.MaxTextBytes:
		return "", fmt.Errorf("%s: %w: longer than the %d bytes a check reads", name, citation.ErrTooLarge, citation.MaxTextBytes)
	case !utf8.Valid(b):
		return "", jobs.CheckUTF8(fmt.Sprintf("%s:%d", name, firstInvalidLine(b)), string(b))
	}
	return string(b), nil
}

// firstInvalidLine is the line, from 1, of b's first byte that is not UTF-8.
func firstInvalidLine(b []byte) int {
	line := 1
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			break
		}
		if r == '\n' {
			line++
		}
		b = b[size:]
	}
	return line
}

// writeCiteCheck prints the check as a short report.
func writeCiteCheck(w io.Writer, taskID int64, r *citation.Result) {
	fmt.Fprintf(w, "Citation check — task %d\n", taskID)
	fmt.Fprintf(w, "coverage: %s ids cited (%.0f%%), in %s\n", r.Coverage.Text, 100*r.Coverage.Fraction,
		count(r.Groups, "citation group"))
	fmt.Fprintf(w, "cited: %s\n", idList(r.Cited))
	if r.InvalidCount == 0 {
		fmt.Fprintln(w, "ids the task does not have: none")
	} else {
		fmt.Fprintf(w, "ids the task does not have: %s, cited %s:\n", idList(r.InvalidIDs), count(r.InvalidCount, "time"))
		for _, ref := range r.Invalid {
			fmt.Fprintf(w, "  %s at line %d:%d\n", ref.ID, ref.Line, ref.Column)
		}
	}
	if r.MalformedCount > 0 {
		fmt.Fprintf(w, "malformed citations (%d; write [E1,E2,E3], not a range or other separators):\n", r.MalformedCount)
		for _, m := range r.Malformed {
			fmt.Fprintf(w, "  %s at line %d:%d\n", m.Text, m.Line, m.Column)
		}
	}
	fmt.Fprintf(w, "uncited ids: %s\n", idList(r.Uncited))
	fmt.Fprintf(w, "factual sentences citing no id of the task: %d of %d (%s in all)\n", r.UnsupportedCount, r.Factual,
		count(r.Sentences, "sentence"))
	for _, s := range r.Unsupported {
		why := s.Mark
		if s.Word != "" {
			why += " " + s.Word
		}
		fmt.Fprintf(w, "  line %d:%d (%s): %s\n", s.Line, s.Column, why, s.Text)
	}
	if r.Truncated {
		fmt.Fprintf(w, "(lists cut at %d entries; the counts are complete)\n", citation.MaxReported)
	}
	if r.OK {
		fmt.Fprintln(w, "result: every citation is an id of the task")
	} else {
		fmt.Fprintln(w, "result: FAILED — "+citeFailure(taskID, r))
	}
}

// citeFailure says why a check failed.
func citeFailure(taskID int64, r *citation.Result) string {
	var parts []string
	if r.InvalidCount > 0 {
		parts = append(parts, fmt.Sprintf("the text cites ids task %d does not have: %s (%s)", taskID, idList(r.InvalidIDs),
			count(r.InvalidCount, "citation")))
	}
	if r.MalformedCount > 0 {
		parts = append(parts, count(r.MalformedCount, "malformed citation"))
	}
	return strings.Join(parts, "; ")
}

// idList is "E1 E3", or "none".
func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, " ")
}
