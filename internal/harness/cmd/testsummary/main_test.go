package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// stream is `go test -json` output (times and durations removed) of a
// package without tests, a package with a skipped test, a failing subtest, a
// skipped subtest and a passing test, a package that passes, and a package
// whose test binary does not build.
const stream = `{"Action":"start","Package":"m/none"}
{"Action":"output","Package":"m/none","Output":"?   \tm/none\t[no test files]\n"}
{"Action":"skip","Package":"m/none"}
{"Action":"start","Package":"m/p"}
{"Action":"run","Package":"m/p","Test":"TestA"}
{"Action":"output","Package":"m/p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"m/p","Test":"TestA","Output":"    p_test.go:3: no tool: needs x\n"}
{"Action":"output","Package":"m/p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"m/p","Test":"TestA"}
{"Action":"run","Package":"m/p","Test":"TestB"}
{"Action":"output","Package":"m/p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"run","Package":"m/p","Test":"TestB/s1"}
{"Action":"output","Package":"m/p","Test":"TestB/s1","Output":"=== RUN   TestB/s1\n"}
{"Action":"output","Package":"m/p","Test":"TestB/s1","Output":"    p_test.go:4: boom\n"}
{"Action":"output","Package":"m/p","Test":"TestB/s1","Output":"--- FAIL: TestB/s1 (0.00s)\n"}
{"Action":"fail","Package":"m/p","Test":"TestB/s1"}
{"Action":"run","Package":"m/p","Test":"TestB/s2"}
{"Action":"output","Package":"m/p","Test":"TestB/s2","Output":"=== RUN   TestB/s2\n"}
{"Action":"output","Package":"m/p","Test":"TestB/s2","Output":"    p_test.go:4: sub skip 2\n"}
{"Action":"output","Package":"m/p","Test":"TestB/s2","Output":"--- SKIP: TestB/s2 (0.00s)\n"}
{"Action":"skip","Package":"m/p","Test":"TestB/s2"}
{"Action":"output","Package":"m/p","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}
{"Action":"fail","Package":"m/p","Test":"TestB"}
{"Action":"run","Package":"m/p","Test":"TestC"}
{"Action":"output","Package":"m/p","Test":"TestC","Output":"=== RUN   TestC\n"}
{"Action":"output","Package":"m/p","Test":"TestC","Output":"    p_test.go:5: passing log\n"}
{"Action":"output","Package":"m/p","Test":"TestC","Output":"--- PASS: TestC (0.00s)\n"}
{"Action":"pass","Package":"m/p","Test":"TestC"}
{"Action":"output","Package":"m/p","Output":"FAIL\n"}
{"Action":"output","Package":"m/p","Output":"FAIL\tm/p\t0.002s\n"}
{"Action":"fail","Package":"m/p"}
{"Action":"start","Package":"m/ok"}
{"Action":"run","Package":"m/ok","Test":"TestOK"}
{"Action":"output","Package":"m/ok","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"m/ok","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"m/ok","Test":"TestOK"}
{"Action":"output","Package":"m/ok","Output":"PASS\n"}
{"Action":"output","Package":"m/ok","Output":"ok  \tm/ok\t0.010s\n"}
{"Action":"pass","Package":"m/ok"}
{"ImportPath":"m/q [m/q.test]","Action":"build-output","Output":"# m/q [m/q.test]\n"}
{"ImportPath":"m/q [m/q.test]","Action":"build-output","Output":"q/q.go:2:23: cannot use \"x\" as int value\n"}
{"ImportPath":"m/q [m/q.test]","Action":"build-fail"}
{"Action":"start","Package":"m/q"}
{"Action":"output","Package":"m/q","Output":"FAIL\tm/q [build failed]\n"}
{"Action":"fail","Package":"m/q","FailedBuild":"m/q [m/q.test]"}
`

func TestRenderIsPlainGoTestThenSkips(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	r := newRenderer(&out, &errOut, "m")
	if err := r.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	r.finish()
	want := "?   \tm/none\t[no test files]\n" +
		"    p_test.go:4: boom\n" +
		"--- FAIL: TestB/s1 (0.00s)\n" +
		"--- FAIL: TestB (0.00s)\n" +
		"FAIL\n" +
		"FAIL\tm/p\t0.002s\n" +
		"ok  \tm/ok\t0.010s\n" +
		"FAIL\tm/q [build failed]\n" +
		"FAIL\n" +
		"\nskipped: 2 tests (by package and reason):\n" +
		"  p: 1 test (TestA): no tool: needs x\n" +
		"  p: 1 test (TestB/s2): sub skip 2\n"
	if got := out.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	if got, want := errOut.String(), "# m/q [m/q.test]\nq/q.go:2:23: cannot use \"x\" as int value\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestNoSkipsSaysSo(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := newRenderer(&out, &out, "m")
	if err := r.read(strings.NewReader("{\"Action\":\"output\",\"Package\":\"m/ok\",\"Output\":\"ok  \\tm/ok\\t0.1s\\n\"}\n{\"Action\":\"pass\",\"Package\":\"m/ok\"}\nnot json\n")); err != nil {
		t.Fatal(err)
	}
	r.finish()
	if got, want := out.String(), "ok  \tm/ok\t0.1s\nnot json\n\nskipped: none\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestExitStatusIsTheCommands checks that the command's exit status comes
// back unchanged, and that its stdout is rendered.
func TestExitStatusIsTheCommands(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "events")
	if err := os.WriteFile(f, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{0, 1, 2, 3} {
		var out bytes.Buffer
		var errOut lockedBuffer // written by the renderer and by exec's copier
		got := run([]string{"sh", "-c", "cat \"$0\"; echo oops >&2; exit " + strconv.Itoa(code), f}, &out, &errOut)
		if got != code {
			t.Errorf("exit %d: run returned %d", code, got)
		}
		if !strings.Contains(out.String(), "ok  \tm/ok\t0.010s\n") || !strings.Contains(errOut.String(), "oops\n") {
			t.Errorf("exit %d: stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	}
	if got := run([]string{"/nonexistent/go"}, &bytes.Buffer{}, &bytes.Buffer{}); got != 127 {
		t.Errorf("missing command: run returned %d, want 127", got)
	}
}

func TestSummaryGroupsByPackageAndReason(t *testing.T) {
	t.Parallel()
	var skips []skipped
	for _, name := range []string{"TestA", "TestB", "TestC/x", "TestD"} {
		skips = append(skips, skipped{"m/chart", name, "chart_test.go:12: helm not found"})
	}
	skips = append(skips, skipped{"m/dash", "TestDash", "dash_test.go:3: promtool missing (make dashcheck)"})
	want := "\nskipped: 5 tests (by package and reason):\n" +
		"  chart: 4 tests (TestA, TestB, TestC/x, …): helm not found\n" +
		"  dash: 1 test (TestDash): promtool missing (make dashcheck)\n"
	if got := summary(skips, "m"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
