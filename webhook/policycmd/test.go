package policycmd

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
)

func newTestCommand() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test [DIR]...",
		Short: "Run the Rego unit tests and the fixture cases",
		Long: `Runs every Rego unit test (test_* rules in *_test.rego) of the default
policies plus the policies in each DIR, then every fixture case under the
embedded testdata/ and each DIR's testdata/: an input Pod and cluster objects,
and the expected Pod or denial. Prints "N passed, N failed" and exits non-zero
if anything failed.`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runTests(ctx, cmd, dirs, verbose)
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print passing tests too")
	return cmd
}

func loadBundle(dirs []string) (*policy.Bundle, error) {
	b, err := policy.DefaultBundle()
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		if err := b.AddFS(os.DirFS(dir), dir); err != nil {
			return nil, fmt.Errorf("loading policies from %s: %w", dir, err)
		}
	}
	return b, nil
}

func runTests(ctx context.Context, cmd *cobra.Command, dirs []string, verbose bool) error {
	out := cmd.OutOrStdout()
	bundle, err := loadBundle(dirs)
	if err != nil {
		return err
	}
	passed, failed := 0, 0
	report := func(name string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(out, "FAIL %s\n    %v\n", name, err)
			return
		}
		passed++
		if verbose {
			fmt.Fprintf(out, "PASS %s\n", name)
		}
	}
	results, err := policy.RunRegoTests(ctx, bundle)
	if err != nil {
		return err
	}
	for _, r := range results {
		var rerr error
		if !r.Passed {
			rerr = fmt.Errorf("%s: %s", r.Location, r.Message)
		}
		report("rego "+r.Name, rerr)
	}
	sources := []struct {
		name string
		fsys fs.FS
	}{{"embedded", policies.FS}}
	for _, dir := range dirs {
		sources = append(sources, struct {
			name string
			fsys fs.FS
		}{dir, os.DirFS(dir)})
	}
	for _, src := range sources {
		if _, err := fs.Stat(src.fsys, "testdata"); err != nil {
			continue
		}
		cases, err := fixture.Load(src.fsys, "testdata")
		if err != nil {
			return fmt.Errorf("%s: %w", src.name, err)
		}
		for _, c := range cases {
			report("case "+filepath.Join(src.name, c.Name), c.Run(ctx, bundle))
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return &ExitError{Code: 1}
	}
	return nil
}
