package repodata

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Size limits of hand-written, non-test Go code: a file or function past
// them wants cutting along its sections.
const (
	maxFileLines = 800
	maxFuncLines = 120
)

// walkGoFiles parses every non-test Go file of the repository (outside
// hidden folders, testdata/ and bin/), generated *.gen.go files included, and
// calls fn with its path relative to the root, slash-separated. It fails t
// when the walk found too few files to have covered the repository.
func walkGoFiles(t *testing.T, mode parser.Mode, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, p)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go files found under %s: the walk missed the repository", files, root)
	}
}

// TestNoOversizedCode checks every hand-written non-test Go file of the
// repository (generated *.gen.go files aside) against the size limits.
func TestNoOversizedCode(t *testing.T) {
	t.Parallel()
	walkGoFiles(t, 0, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasSuffix(rel, ".gen.go") {
			return
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s: %d lines, over %d", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: func %s is %d lines, over %d", rel, fn.Name.Name, n, maxFuncLines)
			}
		}
	})
}
