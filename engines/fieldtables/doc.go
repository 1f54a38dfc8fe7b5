// Package fieldtables maps each runtime kind (and ThinRuntimeProfile) to
// its engine's field table, for the validating webhook, which checks the
// fields at admission, and for the generated field table in
// docs/engines.md.
package fieldtables
