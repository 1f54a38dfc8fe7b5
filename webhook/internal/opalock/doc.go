// Package opalock serialises the OPA calls that rewrite OPA's shared state:
// partial evaluation and query preparation rewrite its shared wildcard term
// in place, a data race when two run at once (bundle loads and specialised
// query builds run on goroutines of their own). Bundle loads (Do) go
// before the specialised query builds waiting for the lock (Background).
package opalock
