package main

import (
	"flag"
	"fmt"
	"os"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

func main() {
	dir := flag.String("chart", "charts/sluice", "the chart's directory")
	out := flag.String("output", "bin", "where to write <name>-<version>.tgz")
	appVersion := flag.String("app-version", "", "the chart's appVersion: the Sluice version (image tag) it installs by default")
	version := flag.String("version", "", "the chart's own version (SemVer; default: Chart.yaml's)")
	flag.Parse()
	if err := run(*dir, *out, *appVersion, *version); err != nil {
		fmt.Fprintln(os.Stderr, "chartpackage:", err)
		os.Exit(1)
	}
}

func run(dir, out, appVersion, version string) error {
	c, err := loader.Load(dir)
	if err != nil {
		return err
	}
	if appVersion != "" {
		c.Metadata.AppVersion = appVersion
	}
	if version != "" {
		c.Metadata.Version = version
	}
	// Validate also checks that the chart's version is SemVer.
	if err := c.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path, err := chartutil.Save(c, out)
	if err != nil {
		return err
	}
	fmt.Printf("chartpackage: wrote %s (version %s, appVersion %s)\n", path, c.Metadata.Version, c.Metadata.AppVersion)
	return nil
}
