package workers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneClassifier walks the product's Go code (every package but the
// test harness) for what tells River how a job ends — river.JobSnooze,
// river.JobCancel — and for calls of the error table's classifier
// (decide, classify): River's calls may appear in
// internal/workers/middleware.go only, the classifier's there and in
// outcome.go, where it is defined, so that every kind's failure is a returned error value that the
// one middleware classifies once. A worker that waits or gives up returns
// an errs.Error (fail, wait) naming its row.
func TestOneClassifier(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	middleware := filepath.Join("internal", "workers", "middleware.go")
	table := filepath.Join("internal", "workers", "outcome.go")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("internal", "harness") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && x.Name == "river" && (fn.Sel.Name == "JobSnooze" || fn.Sel.Name == "JobCancel") && rel != middleware {
					t.Errorf("%s calls river.%s: a job's end is told River in %s only (return fail(…) or wait(…) instead)", rel, fn.Sel.Name, middleware)
				}
			case *ast.Ident:
				if f.Name.Name == "workers" && (fn.Name == "decide" || fn.Name == "classify") && rel != middleware && rel != table {
					t.Errorf("%s calls %s: the error table is applied in %s only", rel, fn.Name, middleware)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("walked %d Go files: not the repository", checked)
	}
}
