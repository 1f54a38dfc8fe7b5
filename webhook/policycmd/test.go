package policycmd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/spf13/cobra"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
)

func newTestCommand() *cobra.Command {
	o := testOptions{}
	cmd := &cobra.Command{
		Use:   "test [DIR]...",
		Short: "Run the Rego unit tests and the fixture cases",
		Long: `Runs the default policies' Rego unit tests (test_* rules in *_test.rego) and
fixture cases (the embedded testdata/), against the default policies.

Then each DIR, a policy directory (Rego modules, tests and data files, and
fixture cases under testdata/: an input Pod or object, the cluster objects,
and the expected Pod, denial or warnings), is tested over the default
policies: the policy directories given together form one bundle, against
which their own Rego tests and cases run. A DIR with no policy file and no
testdata/ of its own whose subdirectories each have a testdata/ is a set of
examples: each subdirectory is tested on its own, as the one policy
directory over the defaults.

A YAML file in a policy directory that holds a policy ConfigMap (label
policy.sluice.io/bundle=true) is not policy data: it is the manifest that
deploys the directory, and the test fails unless its keys are the
directory's policy files (tests aside), with "/" written "__".

Prints "N passed, N failed" and exits non-zero if anything failed. --run
runs only the tests and cases whose name (as printed: "rego <rule>",
"case <dir>", ...) matches a regular expression; --format json or junit
prints every result in that format instead, for CI. --coverage then reports,
for the default policies and for each bundle of directories, each rule's
coverage: how many cases made it fire (a deny rule found something, a
mutation rule had something to change, whatever its mode), whether a Rego
test reached it and how many of its lines the Rego tests evaluated (OPA's
coverage), the rules nothing exercised, and each module's line coverage;
with --format json it is the "coverage" field. The Rego tests' line
coverage counts every Rego test, selected by --run or not.`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if o.runPattern != "" {
				re, err := regexp.Compile(o.runPattern)
				if err != nil {
					return fmt.Errorf("--run: %w", err)
				}
				o.run = re
			}
			switch o.format {
			case formatText, formatJSON, formatJUnit:
			default:
				return fmt.Errorf("--format must be text, json or junit, not %q", o.format)
			}
			if o.coverage && o.format == formatJUnit {
				return fmt.Errorf("--coverage prints with --format text or json; JUnit XML has no place for it")
			}
			return runTests(ctx, cmd.OutOrStdout(), dirs, o)
		},
	}
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "print passing tests too")
	cmd.Flags().StringVar(&o.runPattern, "run", "", "run only the tests and cases whose name matches this regular expression")
	cmd.Flags().StringVar(&o.format, "format", formatText, "output: text, json or junit (JUnit XML)")
	cmd.Flags().BoolVar(&o.coverage, "coverage", false, "report each rule's coverage by the cases and Rego tests, and each module's lines covered")
	return cmd
}

// testOptions tune runTests.
type testOptions struct {
	verbose    bool
	runPattern string
	run        *regexp.Regexp
	format     string
	coverage   bool
	// skipDefaults leaves out the default policies' own tests and cases
	// (for Go tests that test directories only).
	skipDefaults bool
}

// loadBundle returns the default policies, with the install profile's
// data, plus the policy directories', as `policy eval --profile
// --policies` evaluates them.
func loadBundle(profile string, dirs []string) (*policy.Bundle, error) {
	b, err := policy.ProfileBundle(profile)
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		if _, ok, err := isExampleSet(dir); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("%s is a set of example directories; pass one of them", dir)
			}
			return nil, err
		}
		d, err := readPolicyDir(dir)
		if err != nil {
			return nil, err
		}
		if err := d.addTo(b); err != nil {
			return nil, fmt.Errorf("loading policies from %s: %w", dir, err)
		}
	}
	return b, nil
}

// testGroups splits the DIR arguments into bundles to test: the policy
// directories together, and each example of a set of examples alone.
func testGroups(args []string) ([][]*policyDir, error) {
	var together []*policyDir
	var alone [][]*policyDir
	for _, arg := range args {
		subdirs, examples, err := isExampleSet(arg)
		if err != nil {
			return nil, err
		}
		if !examples {
			subdirs = []string{arg}
		}
		for _, dir := range subdirs {
			d, err := readPolicyDir(dir)
			if err != nil {
				return nil, err
			}
			if examples {
				alone = append(alone, []*policyDir{d})
			} else {
				together = append(together, d)
			}
		}
	}
	if len(together) > 0 {
		alone = append([][]*policyDir{together}, alone...)
	}
	return alone, nil
}

type reporter struct {
	out            io.Writer
	verbose        bool
	run            *regexp.Regexp
	passed, failed int
	// results collects every result for a machine format (nil: text).
	results *[]result
	// coverage is set by --coverage: coverages are the bundles'
	// coverage, fired and covered the current bundle's (the rules its
	// cases made fire, the lines its Rego tests reached).
	coverage  bool
	coverages []coverage
	fired     map[string]int
	covered   cover.Report
}

func (r *reporter) report(name string, err error) {
	if !selected(r.run, name) {
		return
	}
	if r.results != nil {
		res := result{Name: name, Passed: err == nil}
		if err != nil {
			r.failed++
			res.Message = err.Error()
		} else {
			r.passed++
		}
		*r.results = append(*r.results, res)
		return
	}
	if err != nil {
		r.failed++
		fmt.Fprintf(r.out, "FAIL %s\n    %s\n", name, strings.ReplaceAll(err.Error(), "\n", "\n    "))
		return
	}
	r.passed++
	if r.verbose {
		fmt.Fprintf(r.out, "PASS %s\n", name)
	}
}

func runTests(ctx context.Context, out io.Writer, args []string, o testOptions) error {
	groups, err := testGroups(args)
	if err != nil {
		return err
	}
	r := &reporter{out: out, verbose: o.verbose, run: o.run, coverage: o.coverage}
	if o.format != "" && o.format != formatText {
		r.results = &[]result{}
	}
	if !o.skipDefaults {
		b, err := policy.DefaultBundle()
		if err != nil {
			return err
		}
		r.startCoverage()
		if err := r.regoTests(ctx, b, ""); err != nil {
			return err
		}
		r.cases(ctx, b, policies.FS, "embedded")
		r.endCoverage("embedded", b, func(module string) bool { return b.Sources[module] == "embedded" })
	}
	for _, dirs := range groups {
		r.group(ctx, dirs)
	}
	if r.results != nil {
		if err := printResults(out, o.format, *r.results, r.coverages); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "%d passed, %d failed\n", r.passed, r.failed)
		for _, c := range r.coverages {
			if err := printCoverage(out, c); err != nil {
				return err
			}
		}
	}
	if r.failed > 0 {
		return &ExitError{Code: 1}
	}
	return nil
}

// group tests policy directories as one bundle over the defaults: their
// Rego tests (without the defaults', which test the defaults), their
// cases, and their ConfigMaps.
func (r *reporter) group(ctx context.Context, dirs []*policyDir) {
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = d.path
	}
	name := strings.Join(names, " + ")
	b, err := policy.DefaultBundle()
	if err != nil {
		r.report("bundle "+name, err)
		return
	}
	b.Tests = map[string]string{}
	for _, d := range dirs {
		if err := d.addTo(b); err != nil {
			r.report("bundle "+name, err)
			return
		}
	}
	for _, d := range dirs {
		for _, file := range slices.Sorted(maps.Keys(d.configMaps)) {
			for _, cm := range d.configMaps[file] {
				r.report("configmap "+filepath.Join(d.path, file), d.checkConfigMap(cm))
			}
		}
	}
	if _, err := policy.Compile(ctx, b, policies.MutatingQuery, policies.ValidatingQuery); err != nil {
		r.report("bundle "+name, err)
		return
	}
	r.startCoverage()
	// With --coverage, also without tests: the report then lists every
	// line as not covered.
	if len(b.Tests) > 0 || r.coverage {
		if err := r.regoTests(ctx, b, name); err != nil {
			r.report("rego tests of "+name, err)
		}
	}
	for _, d := range dirs {
		r.cases(ctx, b, os.DirFS(d.path), d.path)
	}
	r.endCoverage(name, b, func(module string) bool { return b.Sources[module] != "embedded" })
}

// startCoverage begins a bundle's coverage, with --coverage.
func (r *reporter) startCoverage() {
	if r.coverage {
		r.fired, r.covered = map[string]int{}, cover.Report{}
	}
}

// endCoverage adds the bundle's coverage, with --coverage; own says
// which modules are the bundle's own.
func (r *reporter) endCoverage(name string, b *policy.Bundle, own func(module string) bool) {
	if !r.coverage {
		return
	}
	c, err := coverageOf(name, b, r.fired, r.covered, own)
	if err != nil {
		r.report("coverage of "+name, err)
		return
	}
	r.coverages = append(r.coverages, c)
}

func (r *reporter) regoTests(ctx context.Context, b *policy.Bundle, source string) error {
	var results []policy.TestResult
	var err error
	if r.coverage {
		results, r.covered, err = policy.RunRegoTestsCovered(ctx, b)
	} else {
		results, err = policy.RunRegoTests(ctx, b)
	}
	if err != nil {
		return err
	}
	for _, t := range results {
		var terr error
		if !t.Passed {
			terr = fmt.Errorf("%s: %s", t.Location, t.Message)
		}
		name := "rego " + t.Name
		if source != "" {
			name += " (" + source + ")"
		}
		r.report(name, terr)
	}
	return nil
}

// cases runs the fixture cases under fsys's testdata/, if it has one.
func (r *reporter) cases(ctx context.Context, b *policy.Bundle, fsys fs.FS, source string) {
	if _, err := fs.Stat(fsys, testdataDir); err != nil {
		return
	}
	cases, err := fixture.Load(fsys, testdataDir)
	if err != nil {
		r.report("cases of "+source, err)
		return
	}
	for _, c := range cases {
		name := "case " + filepath.Join(source, c.Name)
		if !selected(r.run, name) {
			continue
		}
		fired, err := c.RunFired(ctx, b)
		r.report(name, err)
		if r.fired != nil {
			for _, rule := range fired {
				r.fired[rule]++
			}
		}
	}
}
