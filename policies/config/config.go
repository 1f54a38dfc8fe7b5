package config

import "github.com/sluice-data/sluice/policies/enforcement"

// Config is the policy data: policies read it as data.sluice.config. Every
// key is optional in a data file, which is deep-merged over the defaults
// (policies/data.yaml); an unknown key or a value of the wrong type is an
// error naming its path.
type Config struct {
	// What the mutating webhook does to Pods that use datasets.
	Mutating Mutating `json:"mutating"`
	// What the validating webhook admits of Datasets, runtimes and data
	// operations.
	Validating Validating `json:"validating"`
	// What is done with each rule's finding: modes per rule and namespace
	// (deny, warn or dryrun for a deny rule; apply or dryrun for a
	// mutation rule), and named exceptions with an expiry
	// (policies/enforcement, which checks the modes against the rules).
	Enforcement enforcement.Policy `json:"enforcement"`
	// Data of the platform's own Rego modules (policy ConfigMap keys ending
	// in .rego), read as data.sluice.config.custom: any keys, not checked
	// here; a module checks what it reads.
	Custom map[string]any `json:"custom"`
}
