package lazy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageLevelOncesAreRegistered walks the module's Go files (tests
// and the tools modules aside) and refuses a package-level variable that
// is a sync.Once or is made by sync.OnceValue, OnceValues or OnceFunc:
// such a value is computed on first use, by the first request after a
// server starts, unless it goes through Value or Values, which Build
// computes before the server reports ready.
func TestPackageLevelOncesAreRegistered(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (tests/tools/...)
				}
			}
			switch d.Name() {
			case "testdata", "bin", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, bad := range packageLevelOnces(t, path) {
			t.Errorf("%s: package-level %s: use lazy.Value or lazy.Values, which lazy.Build computes before a server is ready", path, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files under %s; the module has hundreds", files, root)
	}
}

// packageLevelOnces names the offending package-level declarations of one
// file, by how sync is imported there.
func packageLevelOnces(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	syncName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"sync"` {
			syncName = "sync"
			if imp.Name != nil {
				syncName = imp.Name.Name
			}
		}
	}
	if syncName == "" {
		return nil
	}
	isSync := func(e ast.Expr, names ...string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || pkg.Name != syncName {
			return false
		}
		for _, n := range names {
			if sel.Sel.Name == n {
				return true
			}
		}
		return false
	}
	var out []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			name := vs.Names[0].Name
			if vs.Type != nil && isSync(vs.Type, "Once") {
				out = append(out, name+" (sync.Once)")
			}
			for _, v := range vs.Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && isSync(ast.Unparen(indexed(call.Fun)), "OnceValue", "OnceValues", "OnceFunc") {
						out = append(out, name+" (made by a sync.Once function)")
					}
					return true
				})
			}
		}
	}
	return out
}

// indexed is e without explicit type arguments (sync.OnceValue[T]).
func indexed(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.IndexExpr:
		return x.X
	case *ast.IndexListExpr:
		return x.X
	}
	return e
}
