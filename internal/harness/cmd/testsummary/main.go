// Command testsummary runs a `go test -json` command line, prints what plain
// `go test` would have printed — one ok line per passing package, the output
// of failing tests and packages, build errors on stderr — and then lists the
// tests that were skipped, each with the reason its t.Skip call gave. It
// exits with the command's exit status, so `make test` fails exactly when
// `go test` does.
//
//	testsummary go test -json -race -count=1 ./...
//
// It knows no package or test by name: every skip of the run is listed,
// wherever its package lives.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsummary go test -json [flags] [packages]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command, renders its output and returns its exit status.
func run(argv []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testsummary:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testsummary:", err)
		return 127
	}
	// An interrupt reaches go test too (same process group); pass on what
	// was sent to this process alone, and keep reading until go test ends.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()

	r := newRenderer(stdout, stderr, modulePath())
	readErr := r.read(pipe)
	waitErr := cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	r.finish()
	if readErr != nil {
		fmt.Fprintln(stderr, "testsummary: reading go test output:", readErr)
	}
	if waitErr != nil {
		if ee, ok := waitErr.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, "testsummary:", waitErr)
		return 1
	}
	if readErr != nil {
		return 1
	}
	return 0
}

// modulePath is the module of the working directory's go.mod, trimmed from
// package paths in the summary ("" when there is none).
func modulePath() string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type line struct{ test, text string }

// pkgRun is the buffered output of one package's test binary.
type pkgRun struct {
	lines []line
	ended map[string]string   // test → pass, fail or skip
	out   map[string][]string // test → its output so far, for skip reasons
}

type skipped struct{ pkg, test, reason string }

type renderer struct {
	stdout, stderr io.Writer
	module         string
	pkgs           map[string]*pkgRun
	order          []string // packages in order of first event
	skips          []skipped
	failed         bool
}

func newRenderer(stdout, stderr io.Writer, module string) *renderer {
	return &renderer{stdout: stdout, stderr: stderr, module: module, pkgs: map[string]*pkgRun{}}
}

func (r *renderer) read(in io.Reader) error {
	br := bufio.NewReader(in)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			r.handleLine(b)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (r *renderer) handleLine(b []byte) {
	var ev event
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) || json.Unmarshal(b, &ev) != nil {
		_, _ = r.stdout.Write(b) // not an event: pass it on as it came
		return
	}
	r.handle(ev)
}

func (r *renderer) pkg(name string) *pkgRun {
	p, ok := r.pkgs[name]
	if !ok {
		p = &pkgRun{ended: map[string]string{}, out: map[string][]string{}}
		r.pkgs[name] = p
		r.order = append(r.order, name)
	}
	return p
}

func (r *renderer) handle(ev event) {
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(r.stderr, ev.Output) // compiler and vet errors, as go test prints them
	case ev.Package == "":
		fmt.Fprint(r.stdout, ev.Output)
	case ev.Action == "output":
		p := r.pkg(ev.Package)
		p.lines = append(p.lines, line{ev.Test, ev.Output})
		if ev.Test != "" {
			p.out[ev.Test] = append(p.out[ev.Test], ev.Output)
		}
	case ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip":
		if ev.Test == "" {
			r.flush(ev.Package, ev.Action)
			return
		}
		p := r.pkg(ev.Package)
		p.ended[ev.Test] = ev.Action
		if ev.Action == "skip" {
			r.skips = append(r.skips, skipped{ev.Package, ev.Test, skipReason(p.out[ev.Test])})
		}
		delete(p.out, ev.Test)
	}
}

// skipReason is what a skipped test printed, without the framing lines.
func skipReason(out []string) string {
	var msg []string
	for _, o := range out {
		if framing(o) || strings.HasPrefix(o, "--- SKIP") {
			continue
		}
		if s := strings.TrimSpace(o); s != "" {
			msg = append(msg, s)
		}
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}

// framing reports the lines `go test -v` adds around each test.
func framing(s string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// flush prints one finished package as plain `go test` does: the ok line of
// a passing package, the line of a package without tests, and everything
// but passing and skipped tests of a failing one.
func (r *renderer) flush(name, action string) {
	p := r.pkg(name)
	delete(r.pkgs, name)
	for _, l := range p.lines {
		switch {
		case action == "pass":
			if l.test == "" && strings.HasPrefix(l.text, "ok") {
				fmt.Fprint(r.stdout, l.text)
			}
		case action == "skip":
			if l.test == "" {
				fmt.Fprint(r.stdout, l.text)
			}
		default:
			if st := p.ended[l.test]; l.test == "" || (st != "pass" && st != "skip" && !framing(l.text)) {
				fmt.Fprint(r.stdout, l.text)
			}
		}
	}
	if action == "fail" {
		r.failed = true
	}
}

// finish prints packages that never ended (go test was killed), go test's
// closing FAIL and the list of skipped tests.
func (r *renderer) finish() {
	for _, name := range r.order {
		if _, open := r.pkgs[name]; open {
			r.flush(name, "fail")
		}
	}
	if r.failed {
		fmt.Fprintln(r.stdout, "FAIL")
	}
	fmt.Fprint(r.stdout, summary(r.skips, r.module))
}

// location is the file:line prefix the testing package puts before a log.
var location = regexp.MustCompile(`^[^ :]+\.go:\d+: `)

// summary lists the skipped tests, one line per package and reason, with
// the count and the first few names.
func summary(skips []skipped, module string) string {
	if len(skips) == 0 {
		return "\nskipped: none\n"
	}
	type group struct {
		pkg, reason string
		tests       []string
	}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, s := range skips {
		pkg := strings.TrimPrefix(strings.TrimPrefix(s.pkg, module), "/")
		if pkg == "" {
			pkg = s.pkg
		}
		reason := location.ReplaceAllString(s.reason, "")
		k := [2]string{pkg, reason}
		g, ok := byKey[k]
		if !ok {
			g = &group{pkg: pkg, reason: reason}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, s.test)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nskipped: %s (by package and reason):\n", plural(len(skips), "test"))
	for _, g := range groups {
		names := g.tests
		if len(names) > 3 {
			names = append(names[:3:3], "…")
		}
		fmt.Fprintf(&b, "  %s: %s (%s): %s\n", g.pkg, plural(len(g.tests), "test"), strings.Join(names, ", "), g.reason)
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
