// Package trust is Sluice's tenant trust model written down as one table:
// for every field of every data.fluid.io kind, whether a namespace user
// may set it freely (tenant-safe: it reaches only unprivileged
// containers, status or data such as an argv element or a config file),
// whether a named guard rule of the default policies judges it (guarded),
// whether it is never taken from a tenant object (platform-owned), or
// whether the engine refuses it (refused, from the engine's field table).
//
// The table is complete by construction: Kinds walks every kind of
// api/v1alpha1 by reflection, nested structs and lists included, and the
// package's tests fail on any field the table does not classify, on a
// guarded row whose rule the default policies lack, and on a row that
// names no field. The validating webhook derives its facts for the
// privileged-container rule from the guarded rows (Judged), so a field
// classified there is judged without further code, and docs/security.md
// shows the table (Markdown, spliced by `make generate`).
package trust
