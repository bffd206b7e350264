package repodata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/api"
)

// built holds bin/enqueue and bin/worker, built once from this tree into a
// directory of the test's (TestMain removes it).
var built struct {
	once sync.Once
	dir  string
	err  error
}

// binary returns the path of a built binary, enqueue or worker; the test
// fails when the build did.
func binary(t *testing.T, name string) string {
	t.Helper()
	built.once.Do(func() {
		r, err := Root()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "doccheck-bin-"); built.err != nil {
			return
		}
		for _, n := range []string{"enqueue", "worker"} {
			// go test puts its own go first on the PATH
			cmd := exec.Command("go", "build", "-o", filepath.Join(built.dir, n), "./cmd/"+n)
			cmd.Dir = r
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("go build ./cmd/%s: %v\n%s", n, err, out)
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, name)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// deliberatelyWrong are command lines the documents show as mistakes (what
// a misspelt command answers).
var deliberatelyWrong = []string{"enqueue task shwo"}

// command is one command line a document shows.
type command struct {
	where string   // file:line
	bin   string   // enqueue, worker or make
	words []string // shell words after the binary, up to the end of the command
}

func (c command) String() string { return c.bin + " " + strings.Join(c.words, " ") }

// shellWords splits s as a shell would into words (quotes kept out, a
// quote left open closing at the end), and stops at the end of the first
// command: a comment, a pipe, a redirection, a separator or a closing
// parenthesis of $(…).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord, c == ';', c == ')', c == '>', c == '<', c == '&':
			flush()
			return words
		case c == '|' && (!inWord || i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '|'):
			flush()
			return words
		case c == '`':
			flush()
			return words
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// withoutComment cuts a shell line at its comment: a # outside quotes at
// the start of a word.
func withoutComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// commandStart finds the commands in a line of a shell block or in a code
// span: bin/enqueue, bin/worker (and enqueue, worker without bin/: a pod
// has them on its PATH) and make, each at the start or after a space, a
// quote, "(" or "=".
var commandStart = regexp.MustCompile(`(?:^|[\s("'=])((?:bin/)?(?:enqueue|worker)|make)(?:$|[\s)])`)

func findCommands(where, s string) []command {
	var out []command
	for _, m := range commandStart.FindAllStringSubmatchIndex(s, -1) {
		name := strings.TrimPrefix(s[m[2]:m[3]], "bin/")
		rest := s[m[3]:]
		c := command{where: where, bin: name, words: shellWords(rest)}
		if name == "make" && len(c.words) == 0 {
			continue // the word, not a command line
		}
		out = append(out, c)
	}
	return out
}

// documentedCommands returns the commands README.md and docs/*.md show: in
// their shell code blocks (sh, bash, console or none) and in their code
// spans.
func documentedCommands(t *testing.T) []command {
	t.Helper()
	var out []command
	for _, d := range readerDocs(t) {
		for _, l := range mdLines(d.text) {
			if !l.fence || l.marker {
				continue
			}
			switch l.lang {
			case "", "sh", "bash", "shell", "console":
			default:
				continue
			}
			text := withoutComment(strings.TrimPrefix(strings.TrimSpace(l.text), "$ "))
			cs := findCommands(fmt.Sprintf("%s:%d", d.rel, l.n), text)
			if l.lang == "" {
				// a block of a program's output: only a line that is
				// a command
				cs = slices.DeleteFunc(cs, func(c command) bool {
					return !strings.HasPrefix(text, "bin/"+c.bin+" ") && !strings.HasPrefix(text, c.bin+" ")
				})
			}
			out = append(out, cs...)
		}
		for _, s := range mdCodeSpans(d.text) {
			out = append(out, findCommands(fmt.Sprintf("%s:%d", d.rel, s.n), s.text)...)
		}
	}
	return slices.DeleteFunc(out, func(c command) bool { return slices.Contains(deliberatelyWrong, c.String()) })
}

// makeTargets are the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	rule := regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z0-9_.-]*(?:[ \t]+[A-Za-z][A-Za-z0-9_.-]*)*)[ \t]*:(?:[^=]|$)`)
	for _, m := range rule.FindAllStringSubmatch(string(b), -1) {
		for _, name := range strings.Fields(m[1]) {
			targets[name] = true
		}
	}
	if !targets["run"] || !targets["test"] {
		t.Fatalf("the Makefile's targets were not read: %v", sortedKeys(targets))
	}
	return targets
}

var (
	pathWord = regexp.MustCompile(`^[a-z][a-z0-9-]*(?:\|[a-z][a-z0-9-]*)*$`)
	flagWord = regexp.MustCompile(`^\[?(--[a-z][a-z0-9-]*)`)
	makeVar  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// checker checks command lines against the Makefile's targets and the
// binaries' help.
type checker struct {
	t       *testing.T
	targets map[string]bool
	mu      sync.Mutex
	help    map[string]helpRun // by "bin words…"
}

// helpRun is what `<bin> <words> --help` printed.
type helpRun struct {
	out string
	err error
}

func newChecker(t *testing.T) *checker {
	return &checker{t: t, targets: makeTargets(t), help: map[string]helpRun{}}
}

func (ck *checker) helpOf(bin string, words []string) helpRun {
	key := bin + " " + strings.Join(words, " ")
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if h, ok := ck.help[key]; ok {
		return h
	}
	var out bytes.Buffer
	cmd := exec.Command(binary(ck.t, bin), append(slices.Clone(words), "--help")...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "EVF_DATABASE_URL=")
	err := cmd.Run()
	ck.help[key] = helpRun{out.String(), err}
	return ck.help[key]
}

// problems says what is wrong with a command line, nothing when it is
// right: `make …` must name targets the Makefile has; `enqueue …` and
// `worker …` a real command path — `<bin> <words> --help` prints the help
// of a command whose path is the words, or of a command without
// subcommands whose path the words begin with (the rest its arguments) —
// and only --flags that command takes.
func (ck *checker) problems(c command) []string {
	var out []string
	if c.bin == "make" {
		for _, w := range c.words {
			if makeVar.MatchString(w) {
				continue
			}
			if !ck.targets[w] {
				out = append(out, fmt.Sprintf("the Makefile has no target %q", w))
			}
		}
		return out
	}
	var words, flags []string
	for _, w := range c.words {
		if !pathWord.MatchString(w) {
			break
		}
		words = append(words, w)
	}
	for _, w := range c.words {
		if m := flagWord.FindStringSubmatch(w); m != nil && m[1] != "--help" {
			flags = append(flags, m[1])
		}
	}
	for _, path := range alternatives(words) {
		h := ck.helpOf(c.bin, path)
		if h.err != nil {
			out = append(out, fmt.Sprintf("%s %s --help: %v\n%s", c.bin, strings.Join(path, " "), h.err, h.out))
			continue
		}
		usage := usageLine(h.out)
		if len(usage) == 0 || usage[0] != c.bin {
			out = append(out, fmt.Sprintf("%s %s --help printed no usage line:\n%s", c.bin, strings.Join(path, " "), h.out))
			continue
		}
		k := 0
		for k < len(path) && k+1 < len(usage) && usage[k+1] == path[k] {
			k++
		}
		if k < len(path) && strings.Contains(h.out, "Available Commands:") {
			out = append(out, fmt.Sprintf("%q is no command of `%s`, which has subcommands", path[k], strings.Join(usage[:k+1], " ")))
			continue
		}
		for _, f := range flags {
			if !regexp.MustCompile(`(?m)\s` + regexp.QuoteMeta(f) + `(?:[\s,=]|$)`).MatchString(h.out) {
				out = append(out, fmt.Sprintf("`%s` takes no %s", strings.Join(usage[:k+1], " "), f))
			}
		}
	}
	return out
}

// TestDocumentedCommandsExist checks every command README.md and docs/*.md
// show (checker.problems says how).
func TestDocumentedCommandsExist(t *testing.T) {
	t.Parallel()
	ck := newChecker(t)
	counts := map[string]int{}
	for _, c := range documentedCommands(t) {
		counts[c.bin]++
		for _, p := range ck.problems(c) {
			t.Errorf("%s: `%s`: %s", c.where, c, p)
		}
	}
	if counts["enqueue"] < 50 || counts["worker"] < 10 || counts["make"] < 20 {
		t.Fatalf("only %v commands found: the scan missed the documents", counts)
	}
	t.Logf("commands checked: %v", counts)
}

// TestCommandCheckRefusesWrongCommands: the check above fails a misspelt
// command, a word after a command that has subcommands, a flag the
// command does not take and a target the Makefile lacks, and passes
// arguments and alternatives.
func TestCommandCheckRefusesWrongCommands(t *testing.T) {
	t.Parallel()
	ck := newChecker(t)
	for mdLine, wrong := range map[string]bool{
		"bin/enqueue stauts --task 1":                                    true,
		"bin/enqueue task shwo":                                          true,
		"bin/enqueue task create --no-such-flag":                         true,
		"bin/worker config --yaml":                                       true,
		"make run no-such-target":                                        true,
		"bin/enqueue task create --hypothesis \"x\" [--org ORG]":         false,
		"bin/enqueue domain set stats.example.org GOVERNMENT --reason r": false,
		"bin/enqueue operator token create|list|rotate|revoke":           false,
		"bin/enqueue org share default --org acme --json":                false,
		"bin/worker --version":                                           false,
		"bin/worker config --markdown":                                   false,
		"make bench BENCH_FLAGS='-quick -only verify'":                   false,
	} {
		cs := findCommands("x", mdLine)
		if len(cs) != 1 {
			t.Fatalf("findCommands(%q) = %v", mdLine, cs)
		}
		if got := ck.problems(cs[0]); (len(got) > 0) != wrong {
			t.Errorf("`%s`: problems %q, want wrong=%v", mdLine, got, wrong)
		}
	}
}

// alternatives expands the words a|b|c of a command path into one path
// per alternative.
func alternatives(words []string) [][]string {
	paths := [][]string{nil}
	for _, w := range words {
		var next [][]string
		for _, alt := range strings.Split(w, "|") {
			for _, p := range paths {
				next = append(next, append(slices.Clone(p), alt))
			}
		}
		paths = next
	}
	return paths
}

// usageLine returns the words of the first line under "Usage:" of cobra's
// help.
func usageLine(help string) []string {
	_, after, ok := strings.Cut(help, "Usage:\n")
	if !ok {
		return nil
	}
	first, _, _ := strings.Cut(strings.TrimLeft(after, " \n"), "\n")
	return strings.Fields(first)
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string][]string{
		` task create --hypothesis "Sea level rise." [--org ORG]   # prints the id`: {"task", "create", "--hypothesis", "Sea level rise.", "[--org", "ORG]"},
		` org token create --org acme [--ttl 720h])   # secret`:                     {"org", "token", "create", "--org", "acme", "[--ttl", "720h]"},
		` evidence --task 1 > task-1.jsonl`:                                         {"evidence", "--task", "1"},
		` operator token create|list|rotate|revoke  # operators'`:                   {"operator", "token", "create|list|rotate|revoke"},
		` bench BENCH_FLAGS='-quick -only verify'`:                                  {"bench", "BENCH_FLAGS=-quick -only verify"},
		` job --kind rerank --args '{"task_id": 1, "top_k": 20}'`:                   {"job", "--kind", "rerank", "--args", `{"task_id": 1, "top_k": 20}`},
		` task list | head`: {"task", "list"},
	} {
		if got := shellWords(in); !slices.Equal(got, want) {
			t.Errorf("shellWords(%q) = %q, want %q", in, got, want)
		}
	}
	got := findCommands("x", `make explore CMD='bin/enqueue task show --task 1'`)
	if len(got) != 2 || got[0].String() != "make explore CMD=bin/enqueue task show --task 1" || got[1].String() != "enqueue task show --task 1" {
		t.Errorf("findCommands of a nested command = %v", got)
	}
	if got := findCommands("x", "worker_info{version}, the worker's log, enqueue: unknown command, ./cmd/worker, cmake"); len(got) != 0 {
		t.Errorf("findCommands took words for commands: %v", got)
	}
	if got := withoutComment(`bin/worker   # work the queues; /metrics on EVF_METRICS_ADDR (worker and enqueue)`); strings.TrimSpace(got) != "bin/worker" {
		t.Errorf("withoutComment = %q", got)
	}
}

// routeCell is a route as docs/api.md's route table writes it, in a code
// span: a method and a path, perhaps with a query or a status after it.
var routeCell = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (/[^\s?]*)`)

// TestAPIRouteTableIsTheAPIs: the route table of docs/api.md lists every
// operation of the API's OpenAPI document (`worker api openapi`, which the
// handlers make), and nothing else.
func TestAPIRouteTableIsTheAPIs(t *testing.T) {
	t.Parallel()
	var out, stderr bytes.Buffer
	cmd := exec.Command(binary(t, "worker"), "api", "openapi")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "EVF_DATABASE_URL=")
	if err := cmd.Run(); err != nil {
		t.Fatalf("worker api openapi: %v\n%s", err, stderr.String())
	}
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(out.Bytes(), &spec); err != nil {
		t.Fatalf("worker api openapi: %v", err)
	}
	api := map[string]bool{}
	for p, ops := range spec.Paths {
		for m := range ops {
			switch m = strings.ToUpper(m); m {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
				api[m+" "+p] = true
			}
		}
	}
	if len(api) < 20 {
		t.Fatalf("only %d operations in the OpenAPI document", len(api))
	}
	d := readDoc(t, "docs/api.md")
	documented := map[string]bool{}
	inTable := false
	for _, l := range mdLines(d.text) {
		switch {
		case l.fence:
			continue
		case strings.HasPrefix(l.text, "| operation | route |"):
			inTable = true
			continue
		case inTable && !strings.HasPrefix(l.text, "|"):
			inTable = false
		}
		if !inTable {
			continue
		}
		cells := strings.Split(l.text, " | ")
		for _, s := range mdCodeSpans(cells[len(cells)-1]) {
			if m := routeCell.FindStringSubmatch(s.text); m != nil {
				documented[m[1]+" "+m[2]] = true
			}
		}
	}
	for op := range api {
		if !documented[op] {
			t.Errorf("docs/api.md's route table lacks `%s`", op)
		}
	}
	for op := range documented {
		if !api[op] {
			t.Errorf("docs/api.md's route table lists `%s`, which the API does not serve", op)
		}
	}
}

// TestAPIProblemTableIsTheAPIs: the table of problem codes of docs/api.md
// has one row per code the API answers with (api.ProblemCodes, which GET
// /v1/problems lists), with its status.
func TestAPIProblemTableIsTheAPIs(t *testing.T) {
	t.Parallel()
	row := regexp.MustCompile("^\\| (\\d{3}) \\| `([a-z_]+)` \\|")
	documented := map[string]int{}
	for _, l := range mdLines(readDoc(t, "docs/api.md").text) {
		if m := row.FindStringSubmatch(l.text); m != nil && !l.fence {
			status, _ := strconv.Atoi(m[1])
			documented[m[2]] = status
		}
	}
	for _, c := range api.ProblemCodes {
		switch status, ok := documented[c.Code]; {
		case !ok:
			t.Errorf("docs/api.md's problem table lacks `%s` (%d)", c.Code, c.Status)
		case status != c.Status:
			t.Errorf("docs/api.md's problem table gives `%s` the status %d, the API %d", c.Code, status, c.Status)
		}
		delete(documented, c.Code)
	}
	for code := range documented {
		t.Errorf("docs/api.md's problem table lists `%s`, which the API never answers with", code)
	}
}
