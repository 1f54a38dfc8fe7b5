package policycmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/spf13/cobra"
)

func newFmtCommand() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "fmt [--check] PATH...",
		Short: "Format Rego files as OPA's formatter does (opa fmt), or check that they are",
		Long: `Formats every .rego file among PATH (files, or directories walked
recursively) with OPA's formatter, for Rego v1, in place. With --check
nothing is written: the files that are not formatted are listed, and the
command exits with status 1 if there is any (for CI).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var unformatted []string
			for _, root := range args {
				err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
						return err
					}
					changed, err := formatFile(p, !check)
					if changed {
						unformatted = append(unformatted, p)
					}
					return err
				})
				if err != nil {
					return err
				}
			}
			if !check {
				for _, p := range unformatted {
					fmt.Fprintln(cmd.OutOrStdout(), "formatted", p)
				}
				return nil
			}
			for _, p := range unformatted {
				fmt.Fprintln(cmd.OutOrStdout(), "not formatted:", p)
			}
			if len(unformatted) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d file(s) not formatted; run sluice policy fmt on them\n", len(unformatted))
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "list the files that are not formatted and exit 1 if any, writing nothing")
	return cmd
}

// formatFile formats one Rego file, writing it when write is set; changed
// says whether its content was not formatted.
func formatFile(path string, write bool) (changed bool, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	out, err := format.SourceWithOpts(path, src, format.Opts{RegoVersion: ast.RegoV1})
	if err != nil {
		return false, errors.New(strings.TrimSpace(err.Error()))
	}
	if bytes.Equal(out, src) {
		return false, nil
	}
	if write {
		info, err := os.Stat(path)
		if err != nil {
			return true, err
		}
		return true, os.WriteFile(path, out, info.Mode().Perm())
	}
	return true, nil
}
