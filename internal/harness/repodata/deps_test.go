package repodata

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goPackage is one package of the module as `go list` sees it.
type goPackage struct {
	imports []string // direct
	deps    []string // transitive
}

// listPackages runs `go list` once over the whole module.
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]goPackage{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkgs[strings.TrimPrefix(f[0], module+"/")] = goPackage{imports: strings.Fields(f[1]), deps: strings.Fields(f[2])}
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages: the listing missed them", len(pkgs))
	}
	return pkgs
}

// standard reports whether an import path is the standard library's (its
// first element has no dot).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestDependencyRules keeps each package's dependencies to what it is for,
// from one `go list` of the module:
//   - the vocabularies every client and worker imports — the capability
//     interfaces, remote errors, the job error table, the model card — use
//     the standard library and one another only;
//   - the public contract (jobs) pulls in no crawler, parser, Prometheus,
//     database driver, store or model;
//   - the enqueue CLI links no HTML parser, readability, crawler or model;
//   - the page stage (pageproc) reaches no database driver or store, and
//     imports neither River nor database/sql itself (the contract it uses
//     for its text bounds imports River's insert API);
//   - a model backend imports no other backend (what two share lives in
//     internal/models or internal/httpx; models/configured chooses among them),
//     and no model package depends on page parsing (internal/extract): the
//     built-in claim extractor's sentences come from internal/sentence;
//   - the HTTP API (internal/api) imports no store: it speaks the service's
//     types;
//   - no product package links go-trafilatura, which make extract-eval
//     compares with: its date parser costs every process 0.17 s and 78 MB
//     of allocation at start-up and brings a WebAssembly runtime.
func TestDependencyRules(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	vocabulary := []string{"internal/models", "internal/remoteerr", "internal/errs", "internal/modelcard"}
	for _, p := range vocabulary {
		pkg, ok := pkgs[p]
		if !ok {
			t.Errorf("package %s not found", p)
		}
		for _, d := range pkg.deps {
			if !standard(d) && !slices.Contains(vocabulary, strings.TrimPrefix(d, module+"/")) {
				t.Errorf("%s depends on %s: it must use the standard library and the other vocabulary packages only", p, d)
			}
		}
	}
	banned := map[string][]string{
		"jobs": {"colly", "go-readability", "goquery", "prometheus", "jackc/pgx", module + "/store",
			module + "/internal/crawl", module + "/internal/extract", module + "/internal/models"},
		"cmd/enqueue": {"golang.org/x/net/html", "goquery", "go-readability", "colly", module + "/internal/extract",
			module + "/internal/crawl", module + "/internal/models/", module + "/internal/pageproc", module + "/internal/workers"},
		"internal/pageproc": {"jackc/pgx", module + "/store", "riverpgxv5", module + "/internal/workers"},
	}
	for p, words := range banned {
		pkg, ok := pkgs[p]
		if !ok || len(pkg.deps) < 10 {
			t.Errorf("package %s: %d dependencies listed", p, len(pkg.deps))
		}
		for _, d := range pkg.deps {
			for _, w := range words {
				if strings.Contains(d, w) {
					t.Errorf("%s depends on %s", p, d)
				}
			}
		}
	}
	for p, pkg := range pkgs {
		if strings.HasPrefix(p, "internal/harness/") {
			continue
		}
		for _, d := range pkg.deps {
			if strings.Contains(d, "go-trafilatura") || strings.Contains(d, "wazero") {
				t.Errorf("%s depends on %s: only the harness may", p, d)
			}
		}
	}
	if !slices.ContainsFunc(pkgs["internal/harness/cmd/extracteval"].deps, func(d string) bool { return strings.Contains(d, "go-trafilatura") }) {
		t.Error("internal/harness/cmd/extracteval does not link go-trafilatura: the rule above checks nothing")
	}
	if i := slices.IndexFunc(pkgs["internal/pageproc"].imports, func(s string) bool {
		return strings.Contains(s, "riverqueue") || strings.HasPrefix(s, "database/sql")
	}); i >= 0 {
		t.Errorf("pageproc imports %s", pkgs["internal/pageproc"].imports[i])
	}
	if slices.Contains(pkgs["internal/api"].imports, module+"/store") {
		t.Error("internal/api imports store: it speaks internal/service's types")
	}
	backends := 0
	for p, pkg := range pkgs {
		name, ok := strings.CutPrefix(p, "internal/models/")
		if !ok && p != "internal/models" {
			continue
		}
		if slices.Contains(pkg.deps, module+"/internal/extract") {
			t.Errorf("%s depends on internal/extract: a model package needs no page parsing", p)
		}
		if !ok || name == "configured" {
			continue
		}
		backends++
		for _, imp := range pkg.imports {
			if strings.HasPrefix(imp, module+"/internal/models/") {
				t.Errorf("backend %s imports %s", name, imp)
			}
		}
	}
	if backends < 4 {
		t.Errorf("only %d backends found under internal/models", backends)
	}
}
