package jobs_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dbExamples matches the examples that insert jobs into a scratch database
// (exampleDB) on the server of DATABASE_URL. An example cannot skip itself,
// so without DATABASE_URL TestMain leaves them out of the run (-test.skip)
// and TestDatabaseExamples reports them skipped, with the reason; with it
// they run and their output is checked as usual.
const dbExamples = `^Example_insert(FromGo|BySQL)$`

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("DATABASE_URL") == "" {
		skip := dbExamples
		if old := flag.Lookup("test.skip").Value.String(); old != "" {
			skip = old + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, "jobs:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// TestDatabaseExamples: dbExamples matches exactly the examples of this
// package that call exampleDB, so none of them runs (and panics) without
// DATABASE_URL and every one runs with it. Without DATABASE_URL it is
// skipped after the check, naming them.
func TestDatabaseExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var needDB, others []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			calls := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "exampleDB" {
						calls = true
					}
				}
				return !calls
			})
			if calls {
				needDB = append(needDB, fn.Name.Name)
			} else {
				others = append(others, fn.Name.Name)
			}
		}
	}
	if len(needDB) == 0 {
		t.Fatal("no example calls exampleDB: the check proves nothing")
	}
	rx := regexp.MustCompile(dbExamples)
	for _, name := range needDB {
		if !rx.MatchString(name) {
			t.Errorf("%s calls exampleDB but dbExamples (%s) does not match it: it would panic without DATABASE_URL", name, dbExamples)
		}
	}
	for _, name := range others {
		if rx.MatchString(name) {
			t.Errorf("%s needs no database but dbExamples (%s) matches it: it would not run without DATABASE_URL", name, dbExamples)
		}
	}
	if os.Getenv("DATABASE_URL") == "" {
		slices.Sort(needDB)
		t.Skipf("DATABASE_URL is not set: %s not run (make test sets it)", strings.Join(needDB, ", "))
	}
}
