package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/policies/enforcement"
)

// Patterns of the scalar types whose JSON form is a constrained string.
const (
	// quantityPattern is a Kubernetes resource quantity's
	// (k8s.io/apimachinery/pkg/api/resource), as CRD schemas give it.
	quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	// byteSizePattern is what OPA's units.parse_bytes reads.
	byteSizePattern = `^[0-9]+(\.[0-9]+)?([kKmMgGtTpPeE][iI]?[bB]?)?$`
)

// OperationKinds are the data operation kinds.
var OperationKinds = []string{"DataLoad", "DataMigrate", "DataBackup", "DataProcess"}

// Schema is the JSON Schema of Config: every object closed to unknown
// keys (but the maps keyed by a namespace or another name of the data's,
// and custom), no key required but an entry's own. Descriptions are the
// doc comments of the package's Go source in dir, this package's
// directory relative to the working directory ("policies/config" from
// the repository's root).
func Schema(dir string) (*jsonschema.Schema, error) {
	base, err := commentBase(dir)
	if err != nil {
		return nil, err
	}
	r := &jsonschema.Reflector{
		Anonymous:                  true,
		DoNotReference:             true,
		ExpandedStruct:             true,
		RequiredFromJSONSchemaTags: true,
		Mapper:                     mapType,
	}
	// The enforcement section's types are policies/enforcement's.
	for _, d := range []string{dir, filepath.Join(filepath.Dir(dir), "enforcement")} {
		if err := r.AddGoComments(base, d, jsonschema.WithFullComment()); err != nil {
			return nil, fmt.Errorf("reading the doc comments of %s: %w", d, err)
		}
	}
	fieldComments(r.CommentMap)
	r.LookupComment = genericComment(r.CommentMap)
	s := r.Reflect(&Config{})
	s.Title = "Sluice policy data (data.sluice.config)"
	s.Description = "What Sluice's policies read as data.sluice.config. A data file (policies/data.yaml, an install profile, " +
		"a policy ConfigMap's .yaml, .yml or .json key) is deep-merged over the defaults: every key is optional, and an " +
		"unknown key or a value of the wrong type is an error naming its path. Generated from the Go definition in " +
		"policies/config by `make generate`."
	return s, nil
}

// commentBase is the import path AddGoComments joins to dir to name the
// package: this package's own path without dir.
func commentBase(dir string) (string, error) {
	pkg := reflect.TypeFor[Config]().PkgPath()
	d := filepath.ToSlash(filepath.Clean(dir))
	switch {
	case d == ".":
		return pkg, nil
	case strings.HasSuffix(pkg, "/"+d) && !strings.HasPrefix(d, "."):
		return strings.TrimSuffix(pkg, "/"+d), nil
	}
	return "", fmt.Errorf("%s is not the directory of package %s seen from the working directory", dir, pkg)
}

// fieldComments keeps the fields' comments (keys
// <import path>.<type>.<field>), each a paragraph per line: a type's
// comment (Go's, naming the type) describes no key.
func fieldComments(comments map[string]string) {
	for key, text := range comments {
		if strings.Count(key[strings.LastIndexByte(key, '/')+1:], ".") < 2 {
			delete(comments, key)
			continue
		}
		paragraphs := strings.Split(text, "\n\n")
		for i, p := range paragraphs {
			paragraphs[i] = strings.Join(strings.Fields(p), " ")
		}
		comments[key] = strings.Join(paragraphs, "\n\n")
	}
}

// genericComment finds the comments of a generic type's fields, which
// the reflector looks up under the instantiated type's name.
func genericComment(comments map[string]string) func(reflect.Type, string) string {
	return func(t reflect.Type, field string) string {
		name, _, generic := strings.Cut(t.Name(), "[")
		if !generic {
			return ""
		}
		key := t.PkgPath() + "." + name
		if field != "" {
			key += "." + field
		}
		return comments[key]
	}
}

// mapType gives the schemas of the types whose JSON form is not their Go
// form's.
func mapType(t reflect.Type) *jsonschema.Schema {
	switch t {
	case reflect.TypeFor[resource.Quantity]():
		return &jsonschema.Schema{Title: "a quantity such as 2Gi, 500m or 4", Pattern: quantityPattern,
			Extras: map[string]any{"type": []string{"string", "number"}}}
	case reflect.TypeFor[ByteSize]():
		return &jsonschema.Schema{Title: "a byte size such as 64Gi or 500GB", Type: "string", Pattern: byteSizePattern}
	case reflect.TypeFor[OperationKind]():
		return enum(OperationKinds...)
	case reflect.TypeFor[enforcement.Mode]():
		return enum(string(enforcement.Deny), string(enforcement.Warn), string(enforcement.DryRun), string(enforcement.Apply))
	case reflect.TypeFor[metav1.LabelSelectorOperator]():
		return enum(string(metav1.LabelSelectorOpIn), string(metav1.LabelSelectorOpNotIn),
			string(metav1.LabelSelectorOpExists), string(metav1.LabelSelectorOpDoesNotExist))
	case reflect.TypeFor[metav1.Time]():
		return &jsonschema.Schema{Type: "string", Format: "date-time"}
	}
	return nil
}

// enum is the schema of a string that is one of values.
func enum(values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}
