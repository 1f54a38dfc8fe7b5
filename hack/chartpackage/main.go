package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

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

var appVersionLine = regexp.MustCompile(`(?m)^appVersion:.*$`)

// Package writes <output>/<name>-<version>.tgz and returns its path.
func Package(dir, output, appVersion string) (string, error) {
	chartYAML, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	var meta struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
		return "", fmt.Errorf("reading the chart's Chart.yaml: %w", err)
	}
	if meta.Name == "" || meta.Version == "" {
		return "", errors.New("the chart's Chart.yaml has no name or version")
	}
	if appVersion != "" {
		if !appVersionLine.Match(chartYAML) {
			return "", errors.New("the chart's Chart.yaml has no appVersion line to set")
		}
		// Quoted: a version such as 1.10 must stay a string.
		chartYAML = appVersionLine.ReplaceAll(chartYAML, []byte("appVersion: "+strconv.Quote(appVersion)))
	}
	ignore, err := ignored(dir)
	if err != nil {
		return "", err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != "." && ignore(filepath.ToSlash(rel), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		data := chartYAML
		if f != "Chart.yaml" {
			if data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				return "", err
			}
		}
		h := &tar.Header{Name: path.Join(meta.Name, f), Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return "", err
		}
		if _, err := tw.Write(data); err != nil {
			return "", err
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		return "", err
	}
	if err := os.MkdirAll(output, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(output, fmt.Sprintf("%s-%s.tgz", meta.Name, meta.Version))
	return out, os.WriteFile(out, buf.Bytes(), 0o644)
}

// ignored reads .helmignore's simple patterns: "dir/" for a directory,
// otherwise a shell pattern matched against the base name and the path.
func ignored(dir string) (func(rel string, isDir bool) bool, error) {
	var patterns []string
	f, err := os.Open(filepath.Join(dir, ".helmignore"))
	if err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			if line := strings.TrimSpace(s.Text()); line != "" && !strings.HasPrefix(line, "#") {
				if strings.HasPrefix(line, "!") || strings.Contains(line, "**") {
					return nil, fmt.Errorf(".helmignore pattern %q is not supported here", line)
				}
				patterns = append(patterns, line)
			}
		}
		if err := s.Err(); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return func(rel string, isDir bool) bool {
		for _, p := range patterns {
			if strings.HasSuffix(p, "/") {
				if !isDir {
					continue
				}
				p = strings.TrimSuffix(p, "/")
			}
			if ok, _ := path.Match(p, path.Base(rel)); ok {
				return true
			}
			if ok, _ := path.Match(p, rel); ok {
				return true
			}
		}
		return false
	}, nil
}
