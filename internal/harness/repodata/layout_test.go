package repodata

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// module is the repository's module path.
const module = "github.com/evidencefleet/evidencefleet"

// harnessDir holds the test-only code: tests, fixtures and measurement,
// never shipped.
const harnessDir = "internal/harness/"

// testOnlyImports are packages only tests and the harness may import,
// beside the harness itself.
var testOnlyImports = []string{"testing", "net/http/httptest", "github.com/riverqueue/river/rivertest"}

// TestProductImportsNoTestPackage keeps the test-only code out of the
// product: no non-test Go file outside internal/harness imports a harness
// package (which would link fixtures, test servers or recorded answers into
// a binary) or a package of the standard library or River made for tests.
// Checking direct imports is enough: a product package that reached the
// harness through others would have a product package importing it
// directly on the way.
func TestProductImportsNoTestPackage(t *testing.T) {
	t.Parallel()
	walkGoFiles(t, parser.ImportsOnly, func(rel string, _ *token.FileSet, f *ast.File) {
		if strings.HasPrefix(rel, harnessDir) {
			return
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", rel, imp.Path.Value, err)
			}
			if strings.HasPrefix(path, module+"/"+harnessDir) || isTestOnly(path) {
				t.Errorf("%s imports the test-only package %s", rel, path)
			}
		}
	})
}

func isTestOnly(path string) bool {
	for _, p := range testOnlyImports {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// sqlLiteral matches a Go string that is SQL: one that starts as a
// statement does (after any -- comment lines), or that has an upper-case
// FROM clause inside. The project
// writes SQL keywords in upper case, which keeps English messages ("insert
// %s job", "rebuilt from …") out.
var sqlLiteral = regexp.MustCompile(`^\s*(?:--[^\n]*\n\s*)*(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|WITH\s+\w+\s+AS|TRUNCATE|CREATE\s+(TABLE|DATABASE|INDEX)|DROP\s+(TABLE|DATABASE|INDEX)|ALTER\s+(TABLE|DATABASE))\b|\sFROM\s+\w`)

// TestSQLOnlyInStore keeps every SQL statement of the product in store
// (sqlc queries in store/queries, generated into store/*.gen.go, and store's
// own Go) and migrations: no string literal of a non-test Go file elsewhere
// is SQL. internal/harness is allowed its own: the fixtures, the test
// fleet's job inspection, pgtest's and scratchdb's databases, graphsnap's
// graph digest, and eval, bench and chaos reading the outcome of a run are
// test and measurement code reading or setting up the database directly,
// never shipped.
func TestSQLOnlyInStore(t *testing.T) {
	t.Parallel()
	walkGoFiles(t, 0, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasPrefix(rel, "store/") || strings.HasPrefix(rel, "migrations/") || strings.HasPrefix(rel, harnessDir) {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			if sqlLiteral.MatchString(s) {
				t.Errorf("%s: SQL outside store: %.80q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	})
}

// The detector finds SQL and leaves messages alone.
func TestSQLLiteralDetector(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"SELECT 1", "\n\t\tSELECT id FROM river_job", "INSERT INTO tasks (x) VALUES ($1)", "UPDATE river_job SET state = 'available'",
		"DELETE FROM edges", "WITH n AS (SELECT 1) SELECT * FROM n", "TRUNCATE river_job", "CREATE DATABASE x",
		"DROP DATABASE IF EXISTS x", "ALTER TABLE t ADD c int", "count(*) FROM claims WHERE task_id = $1",
		"-- name: TakeLock :exec\n-- a comment\nSELECT pg_advisory_lock($1)",
	} {
		if !sqlLiteral.MatchString(s) {
			t.Errorf("%q not seen as SQL", s)
		}
	}
	for _, s := range []string{
		"Insert a job of any kind", "insert %s job: %w", "with their texts", "create task: %w",
		"Abstract rebuilt from OpenAlex", "retrieved from http", "Select the queues", "update the task",
	} {
		if sqlLiteral.MatchString(s) {
			t.Errorf("%q seen as SQL", s)
		}
	}
}
