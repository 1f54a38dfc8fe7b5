package policies

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/sluice-data/sluice/internal/lazy"
)

// SchemaFile is the JSON Schema of the policy data, generated from its Go
// definition (policies/config) by hack/policyschema. It is embedded apart
// from FS, whose .json files are policy data.
const SchemaFile = "data.schema.json"

//go:embed data.schema.json
var schemaJSON []byte

// dataSchema is the compiled SchemaFile and its document, which names
// the keys an object may have.
type dataSchema struct {
	schema *jsonschema.Schema
	doc    any
}

var loadSchema = lazy.Values("policies: data schema", func() (*dataSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("policies/%s: %w", SchemaFile, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // format regex: a pattern the policies match with must compile
	if err := c.AddResource(SchemaFile, doc); err != nil {
		return nil, fmt.Errorf("policies/%s: %w", SchemaFile, err)
	}
	s, err := c.Compile(SchemaFile)
	if err != nil {
		return nil, fmt.Errorf("policies/%s: %w", SchemaFile, err)
	}
	return &dataSchema{schema: s, doc: doc}, nil
})

// ValidateData checks one policy data file's data, as ParseData decodes
// it (JSON's types), against the schema
// (SchemaFile): an unknown key, a value of the wrong type or out of its
// range is an error naming each one's path, such as
// validating.guards["team-a"].localPaths[0]. A file is checked on its own,
// before it is merged: every key is optional.
func ValidateData(data map[string]any) error {
	s, err := loadSchema()
	if err != nil {
		return err
	}
	var instance any = data
	err = s.schema.Validate(instance)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	problems := s.problems(verr, instance, nil)
	slices.Sort(problems)
	return fmt.Errorf("does not fit the policy data schema (policies/%s): %s", SchemaFile, strings.Join(slices.Compact(problems), "; "))
}

var printer = message.NewPrinter(language.English)

// problems are the leaf errors of e, each as "<path>: <what>".
func (s *dataSchema) problems(e *jsonschema.ValidationError, instance any, out []string) []string {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			out = s.problems(c, instance, out)
		}
		return out
	}
	if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		known := s.keys(e.SchemaURL)
		for _, p := range k.Properties {
			out = append(out, fmt.Sprintf("%s: unknown key (the keys here are %s)",
				fieldPath(instance, append(slices.Clone(e.InstanceLocation), p)), strings.Join(known, ", ")))
		}
		return out
	}
	what := e.ErrorKind.LocalizedString(printer)
	if k, ok := e.ErrorKind.(*kind.Pattern); ok {
		// A value's pattern may be long: its title says what it wants.
		if title, _ := s.at(e.SchemaURL)["title"].(string); title != "" {
			what = fmt.Sprintf("%q is not %s", k.Got, title)
		}
	}
	return append(out, fieldPath(instance, e.InstanceLocation)+": "+what)
}

// at is the schema at schemaURL (the schema file's URL and a JSON pointer
// into it).
func (s *dataSchema) at(schemaURL string) map[string]any {
	_, fragment, _ := strings.Cut(schemaURL, "#")
	node := s.doc
	for _, tok := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
		if tok == "" {
			continue
		}
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, _ := node.(map[string]any)
		node = m[tok]
	}
	m, _ := node.(map[string]any)
	return m
}

// keys are the properties of the schema at schemaURL, sorted.
func (s *dataSchema) keys(schemaURL string) []string {
	props, _ := s.at(schemaURL)["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// fieldPath writes the location loc (keys and indexes, as a JSON pointer's
// tokens) in data as a field path: keys joined by ".", or in brackets and
// quoted when they are not identifiers, indexes in brackets, e.g.
// validating.guards["*"].localPaths[0].
func fieldPath(data any, loc []string) string {
	var b strings.Builder
	cur := data
	for _, seg := range loc {
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + seg + "]")
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
			continue
		case map[string]any:
			cur = c[seg]
		default:
			cur = nil
		}
		switch {
		case !identifier.MatchString(seg):
			b.WriteString("[" + strconv.Quote(seg) + "]")
		case b.Len() > 0:
			b.WriteString("." + seg)
		default:
			b.WriteString(seg)
		}
	}
	if b.Len() == 0 {
		return "the data"
	}
	return b.String()
}
