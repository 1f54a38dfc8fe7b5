package config

// Validating configures the validating webhook's decisions on Datasets,
// runtimes and data operations.
type Validating struct {
	// Which data operations may run together, and on which engines.
	Operations Operations `json:"operations"`
	// Runtime fields the engine cannot honour (engines/<engine>/fields.go).
	Fields Fields `json:"fields"`
	// Cache budgets per namespace: the sum over its runtimes of quota x
	// replicas per medium, e.g. {team-a: {MEM: 64Gi, SSD: 2Ti}}.
	Budgets map[string]Budget `json:"budgets"`
	// Reference datasets (a Dataset whose mount is
	// dataset://<namespace>/<name>) of other namespaces.
	References References `json:"references"`
	// Allowed mount-point schemes per namespace ("*" for every namespace),
	// e.g. {"*": [s3, oss, pvc, local], team-a: [s3]}. Empty allows every
	// scheme.
	MountSchemes map[string][]string `json:"mountSchemes" jsonschema:"minLength=1"`
	// Guards against tenant escape through specs, per namespace ("*" for
	// every namespace): each list of a namespace's entry replaces the one
	// of "*", e.g. {team-a: {localPaths: [/data/team-a]}} keeps every
	// other "*" list.
	Guards map[string]Guards `json:"guards"`
}

// Operations configures the data operations (DataLoad, DataMigrate,
// DataBackup, DataProcess).
type Operations struct {
	// For each operation kind, the kinds whose running holders block it on
	// the same Dataset. A kind listed for itself is exclusive (one at a
	// time).
	Conflicts PerOperation[[]OperationKind] `json:"conflicts"`
	// For each operation kind, the engines (the runtime types Datasets are
	// bound to) that run it; "*" for every engine. An operation on a
	// Dataset whose engine is not listed is admitted with a warning, and
	// fails.
	Engines PerOperation[[]string] `json:"engines"`
	// Engines that run a kind only in some configurations: kind -> engine
	// -> the warning given, e.g. {DataLoad: {thin: "runs only when..."}}.
	Caveats PerOperation[map[string]string] `json:"caveats"`
}

// PerOperation holds a value per data operation kind.
type PerOperation[T any] struct {
	DataLoad    T `json:"DataLoad"`
	DataMigrate T `json:"DataMigrate"`
	DataBackup  T `json:"DataBackup"`
	DataProcess T `json:"DataProcess"`
}

// OperationKind is a data operation kind.
type OperationKind string

// Fields configures the runtime fields an engine refuses.
type Fields struct {
	// Deny them at admission naming the field. false admits them with a
	// warning; the engine still refuses them, and the runtime fails with
	// InvalidSpec.
	DenyRefused bool `json:"denyRefused"`
}

// Budget is a namespace's cache budget per medium.
type Budget struct {
	// Memory.
	MEM ByteSize `json:"MEM"`
	// Solid-state disks.
	SSD ByteSize `json:"SSD"`
	// Hard disks.
	HDD ByteSize `json:"HDD"`
}

// ByteSize is an amount of bytes: a number with an optional unit (k, Ki,
// KB, KiB ... E, Ei; any case), in a string, e.g. "64Gi".
type ByteSize string

// References configures reference datasets across namespaces.
type References struct {
	// A reference to another namespace's Dataset is admitted when the
	// referenced Dataset's annotation data.sluice.io/referable-from lists
	// the referring namespace (or "*"), or when an entry here allows it.
	// Same-namespace references are always admitted.
	Allow []ReferenceRule `json:"allow"`
}

// ReferenceRule allows Datasets of some namespaces to reference a Dataset
// of another.
type ReferenceRule struct {
	// The referring Datasets' namespace, or "*" for any.
	Namespace string `json:"namespace" jsonschema:"required,minLength=1"`
	// The referenced Dataset's namespace, or "*" for any.
	DatasetNamespace string `json:"datasetNamespace" jsonschema:"required,minLength=1"`
	// The referenced Dataset's name, or "*" for any.
	Dataset string `json:"dataset" jsonschema:"required,minLength=1"`
}
