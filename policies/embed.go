package policies

import "embed"

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
