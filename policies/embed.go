package policies

import (
	"embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

// FS holds the default Rego modules (mutating/*.rego, validating/*.rego),
// their unit tests (*_test.rego), the default policy data (data.yaml) and the
// fixture cases under testdata/.
//
//go:embed data.yaml mutating validating testdata
var FS embed.FS

// DataFile is the name of the default policy data in FS; its content is
// served to policies as data.sluice.config.
const DataFile = "data.yaml"

// MutatingQuery is the query whose value is the mutating decision document.
const MutatingQuery = "data.sluice.mutating.decision"

// ValidatingQuery is the query whose value is the validating decision document.
const ValidatingQuery = "data.sluice.validating.decision"

// DefaultData returns the default policy data (data.yaml) decoded as the
// policies see it, for Go code that reads a table of it without evaluating
// Rego (the controller's operation conflict table).
func DefaultData() (map[string]any, error) {
	raw, err := FS.ReadFile(DataFile)
	if err != nil {
		return nil, err
	}
	var data map[string]any
	if err := yaml.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("policies/%s: %w", DataFile, err)
	}
	return data, nil
}
