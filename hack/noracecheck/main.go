package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		return
	}
	dirs, err := packageDirs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "noracecheck:", err)
		os.Exit(2)
	}
	found, err := controlPlanes(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "noracecheck:", err)
		os.Exit(2)
	}
	for _, dir := range dirs {
		f, err := concurrency(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "noracecheck:", err)
			os.Exit(2)
		}
		found = append(found, f...)
	}
	if len(found) > 0 {
		fmt.Fprintln(os.Stderr, "noracecheck: these packages are tested without the race detector (TEST_NORACE), but start goroutines, parallel tests or a control plane; take them off the list:")
		for _, f := range found {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		os.Exit(1)
	}
}

// servers are the packages that start a control plane (and with it the
// informers and controllers that call back into Sluice's code from their
// own goroutines).
var servers = []string{
	"github.com/sluice-data/sluice/tests/support/testenv",
	"github.com/sluice-data/sluice/tests/support/simcluster",
	"sigs.k8s.io/controller-runtime/pkg/envtest",
}

// controlPlanes returns the packages among patterns whose tests link a
// package that starts a control plane.
func controlPlanes(patterns []string) ([]string, error) {
	pkgs, err := goList(append([]string{"-f", "{{.ImportPath}}"}, patterns...))
	if err != nil {
		return nil, err
	}
	var found []string
	for _, pkg := range strings.Fields(pkgs) {
		deps, err := goList([]string{"-test", "-deps", "-f", "{{.ImportPath}}", pkg})
		if err != nil {
			return nil, err
		}
		for _, dep := range strings.Split(deps, "\n") {
			dep, _, _ = strings.Cut(dep, " ")
			if slices.Contains(servers, dep) {
				found = append(found, fmt.Sprintf("%s: its tests link %s", pkg, dep))
				break
			}
		}
	}
	return found, nil
}

// packageDirs resolves package patterns to their directories.
func packageDirs(patterns []string) ([]string, error) {
	out, err := goList(append([]string{"-f", "{{.Dir}}"}, patterns...))
	return strings.Fields(out), err
}

func goList(args []string) (string, error) {
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return "", fmt.Errorf("go list: %s", ee.Stderr)
	}
	return string(out), err
}

// concurrency returns where the Go files in dir (tests included) start a
// goroutine or a parallel test, as file:line: what.
func concurrency(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var found []string
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			what := ""
			switch n := n.(type) {
			case *ast.GoStmt:
				what = "go statement"
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Go" || sel.Sel.Name == "Parallel") {
					what = sel.Sel.Name + " call"
				}
			}
			if what != "" {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
			}
			return true
		})
	}
	return found, nil
}
