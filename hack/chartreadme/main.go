package main

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"text/template"

	"sigs.k8s.io/yaml"
)

//go:embed readme.md.tmpl
var readmeTemplate string

func main() {
	chart := flag.String("chart", "charts/sluice", "the chart's directory; README.md is written there")
	flag.Parse()
	if err := run(*chart); err != nil {
		fmt.Fprintln(os.Stderr, "chartreadme:", err)
		os.Exit(1)
	}
}

// chartMeta is what the README shows of Chart.yaml.
type chartMeta struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	AppVersion  string `json:"appVersion"`
	KubeVersion string `json:"kubeVersion"`
	Description string `json:"description"`
}

func run(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return err
	}
	var meta chartMeta
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("parsing %s: %w", filepath.Join(dir, "Chart.yaml"), err)
	}
	values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return err
	}
	out, err := render(meta, values)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), out, 0o644)
}

// render is the README of a chart with meta and values.yaml's content.
func render(meta chartMeta, values []byte) ([]byte, error) {
	sections, err := parseValues(values)
	if err != nil {
		return nil, fmt.Errorf("values.yaml: %w", err)
	}
	tmpl, err := template.New("readme").Parse(readmeTemplate)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, struct {
		Chart  chartMeta
		Values string
	}{meta, valuesTable(sections)}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
