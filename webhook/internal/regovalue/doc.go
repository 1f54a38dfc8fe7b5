// Package regovalue converts Go values to Rego values the way encoding/json
// would marshal them, without marshalling: the admission fast path's policy
// input. Its oracle is encoding/json plus ast.InterfaceToValue.
package regovalue
