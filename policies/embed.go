package policies

import (
	"embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

// FS holds the default Rego modules (mutating/*.rego, validating/*.rego),
// their unit tests (*_test.rego), the default policy data (data.yaml), the
// install profiles (profiles/*.yaml, overlays of the data: Profile) and the
// fixture cases under testdata/.
//
//go:embed data.yaml mutating validating profiles testdata
var FS embed.FS

// DataFile is the name of the default policy data in FS; its content is
// served to policies as data.sluice.config.
const DataFile = "data.yaml"

// MutatingQuery is the query whose value is the mutating decision document.
const MutatingQuery = "data.sluice.mutating.decision"

// ValidatingQuery is the query whose value is the validating decision document.
const ValidatingQuery = "data.sluice.validating.decision"

// DefaultData returns the default policy data (data.yaml) with the install
// profile's overlay merged over it (Profile), decoded as the policies see
// it: what policy ConfigMaps overlay. The controller reads its tables
// (operation conflicts, the guards it checks at reconcile) from it.
func DefaultData(profile string) (map[string]any, error) {
	data, err := readData(DataFile)
	if err != nil {
		return nil, err
	}
	over, err := Profile(profile)
	if err != nil {
		return nil, err
	}
	return MergeData(data, over), nil
}

// readData decodes one embedded policy data file.
func readData(name string) (map[string]any, error) {
	raw, err := FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var data map[string]any
	if err := yaml.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("policies/%s: %w", name, err)
	}
	if data == nil {
		data = map[string]any{}
	}
	return data, nil
}
