package main

import (
	"encoding/json"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// section is a top-level value and every value under it.
type section struct {
	Key     string
	Comment string
	Rows    []row
}

// row is one value: its dotted path, its default (compact JSON) and the
// comment above it.
type row struct {
	Key, Default, Comment string
}

// parseValues reads values.yaml's keys, defaults and comments, in file
// order. Every value must be commented, itself or (for a value inside a
// mapping) its mapping: an undocumented value fails the generation.
func parseValues(data []byte) ([]section, error) {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yamlv3.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yamlv3.MappingNode {
		return nil, fmt.Errorf("not a mapping")
	}
	top := doc.Content[0]
	var out []section
	for i := 0; i < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		s := section{Key: k.Value, Comment: comment(k)}
		if s.Comment == "" && i > 0 && sharesComment(top.Content[i-2], top.Content[i-1], k) {
			s.Comment = "As `" + top.Content[i-2].Value + "`, above."
		}
		if err := walk(k.Value, s.Comment != "", v, &s.Rows); err != nil {
			return nil, err
		}
		if isBlockMapping(v) && s.Comment == "" {
			return nil, fmt.Errorf("%s: no comment above it", k.Value)
		}
		if !isBlockMapping(v) {
			def, err := compact(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Value, err)
			}
			s.Rows = []row{{Key: k.Value, Default: def, Comment: s.Comment}}
			if s.Comment == "" {
				return nil, fmt.Errorf("%s: no comment above it", k.Value)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// walk adds a row for every value under the block mapping v at path;
// documented says whether a mapping above documents the values without a
// comment of their own.
func walk(path string, documented bool, v *yamlv3.Node, rows *[]row) error {
	if !isBlockMapping(v) {
		return nil
	}
	for i := 0; i < len(v.Content); i += 2 {
		k, child := v.Content[i], v.Content[i+1]
		key := path + "." + k.Value
		c := comment(k)
		if isBlockMapping(child) {
			if c != "" {
				*rows = append(*rows, row{Key: key, Comment: c})
			}
			if err := walk(key, documented || c != "", child, rows); err != nil {
				return err
			}
			continue
		}
		if c == "" && !documented {
			return fmt.Errorf("%s: no comment above it or its mapping", key)
		}
		def, err := compact(child)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*rows = append(*rows, row{Key: key, Default: def, Comment: c})
	}
	return nil
}

// isBlockMapping says whether v is a mapping written as a block with at
// least one key (a flow mapping such as {cpu: 100m} is one value).
func isBlockMapping(v *yamlv3.Node) bool {
	return v.Kind == yamlv3.MappingNode && v.Style&yamlv3.FlowStyle == 0 && len(v.Content) > 0
}

// compact is v as compact JSON.
func compact(v *yamlv3.Node) (string, error) {
	var x any
	if err := v.Decode(&x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// comment is the text of the comment lines above k, one paragraph per
// block of lines; lines indented past the "# " (examples) keep their line.
func comment(k *yamlv3.Node) string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(k.HeadComment, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		text := strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ")
		if strings.HasPrefix(text, "  ") {
			cur = append(cur, "`"+strings.TrimSpace(text)+"`")
			continue
		}
		cur = append(cur, text)
	}
	flush()
	return strings.Join(paras, " ")
}

// sharesComment says whether key k, written on the line after the
// one-line value prevValue of prevKey, shares prevKey's comment (as
// fullnameOverride shares nameOverride's).
func sharesComment(prevKey, prevValue, k *yamlv3.Node) bool {
	return comment(prevKey) != "" && !isBlockMapping(prevValue) && k.Line == prevKey.Line+1
}
