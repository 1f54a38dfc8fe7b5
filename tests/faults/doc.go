// Package faults holds tests of `sluice controller` behind a faulty API
// server connection: every request the controller makes (its cache's lists
// and watches, its writes, Helm's) may get 429 or 500, lose its connection
// before or after the API server acted, or, for watches, start slowly and
// be cut mid-stream (the reflector relists). The tests check that the
// controller converges anyway and touches nothing it should not.
package faults
