package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// imagesAnnotation lists the chart's images for Artifact Hub.
const imagesAnnotation = "artifacthub.io/images"

func main() {
	dir := flag.String("chart", "charts/sluice", "the chart's directory")
	out := flag.String("output", "bin", "where to write <name>-<version>.tgz")
	appVersion := flag.String("app-version", "", "the chart's appVersion: the Sluice version (image tag) it installs by default")
	flag.Parse()
	p, err := Package(*dir, *out, *appVersion)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chartpackage:", err)
		os.Exit(1)
	}
	fmt.Printf("chartpackage: wrote %s (appVersion %s)\n", p, *appVersion)
}

// Package writes <output>/<name>-<version>.tgz and returns its path: what
// `helm package --app-version` does, through the same SDK calls (the
// loader honours .helmignore; Save writes the archive).
func Package(dir, output, appVersion string) (string, error) {
	ch, err := loader.LoadDir(dir)
	if err != nil {
		return "", fmt.Errorf("loading the chart %s: %w", dir, err)
	}
	if appVersion != "" {
		// Artifact Hub's list of the chart's images names the default
		// image by the appVersion tag.
		if imgs, ok := ch.Metadata.Annotations[imagesAnnotation]; ok {
			ch.Metadata.Annotations[imagesAnnotation] = strings.ReplaceAll(imgs, ":"+ch.Metadata.AppVersion+"\n", ":"+appVersion+"\n")
		}
		ch.Metadata.AppVersion = appVersion
	}
	if err := ch.Validate(); err != nil {
		return "", fmt.Errorf("the chart %s: %w", dir, err)
	}
	if err := os.MkdirAll(output, 0o755); err != nil {
		return "", err
	}
	return chartutil.Save(ch, output)
}
