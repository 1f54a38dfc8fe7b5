package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/sluice-data/sluice/policies/config"
)

// chartValuesPath is where the chart's values schema holds the schema of
// policies.config.
var chartValuesPath = []string{"properties", "policies", "properties", "config"}

// chartDescription describes policies.config in the chart's values schema.
const chartDescription = "policy data (data.sluice.config), deep-merged over policies/data.yaml; its schema is policies/data.schema.json"

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "policyschema:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if err := os.Chdir(root); err != nil {
		return err
	}
	s, err := config.Schema(filepath.Join("policies", "config"))
	if err != nil {
		return err
	}
	out, err := marshal(s, "")
	if err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join("policies", "data.schema.json"), append(out, '\n')); err != nil {
		return err
	}
	values := filepath.Join("charts", "sluice", "values.schema.json")
	doc, err := os.ReadFile(values)
	if err != nil {
		return err
	}
	inline := *s
	inline.Version, inline.Title, inline.Description = "", "", chartDescription
	doc, err = splice(doc, chartValuesPath, &inline)
	if err != nil {
		return fmt.Errorf("%s: %w", values, err)
	}
	return writeIfChanged(values, doc)
}

// marshal is v as indented JSON, each line after the first starting with
// prefix. The schema's MarshalJSON escapes <, > and & (json.Marshal's
// HTML escapes), which the descriptions hold ("<namespace>"): they are
// written as themselves, which reads better and means the same.
func marshal(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if strings.Contains(out, `\\u00`) {
		return nil, errors.New(`the schema holds a literal \u00: unescaping it would change it`)
	}
	return []byte(htmlUnescaper.Replace(out)), nil
}

// htmlUnescaper undoes json.Marshal's HTML escapes.
var htmlUnescaper = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")

// splice replaces the value at path (object keys from the top) of the
// JSON document doc by s, indented as the line it starts on.
func splice(doc []byte, path []string, s *jsonschema.Schema) ([]byte, error) {
	start, end, err := valueSpan(doc, path)
	if err != nil {
		return nil, err
	}
	lineStart := bytes.LastIndexByte(doc[:start], '\n') + 1
	indent := doc[lineStart : lineStart+len(doc[lineStart:start])-len(bytes.TrimLeft(doc[lineStart:start], " "))]
	value, err := marshal(s, string(indent))
	if err != nil {
		return nil, err
	}
	out := append(append(append([]byte{}, doc[:start]...), value...), doc[end:]...)
	return out, nil
}

// valueSpan is where the value at path starts and ends in doc.
func valueSpan(doc []byte, path []string) (start, end int, _ error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	for i, key := range path {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return 0, 0, fmt.Errorf("%v is not an object", path[:i])
		}
		for {
			if !dec.More() {
				return 0, 0, fmt.Errorf("%v has no key %q", path[:i], key)
			}
			k, err := dec.Token()
			if err != nil {
				return 0, 0, err
			}
			if k == key {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, 0, err
			}
		}
	}
	start = int(dec.InputOffset())
	for start < len(doc) && bytes.IndexByte([]byte(" \t\r\n:"), doc[start]) >= 0 {
		start++
	}
	var value json.RawMessage
	if err := dec.Decode(&value); err != nil {
		return 0, 0, err
	}
	if len(path) == 0 {
		return 0, 0, errors.New("no path")
	}
	return start, int(dec.InputOffset()), nil
}

// writeIfChanged writes content to name unless it holds it already.
func writeIfChanged(name string, content []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, content) {
		return nil
	}
	return os.WriteFile(name, content, 0o644)
}
