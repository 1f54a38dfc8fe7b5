// Package testenv starts a real kube-apiserver and etcd (built into bin/ by
// the tools modules) with Sluice's CRDs installed, for tests that need the API
// server to decide: schema validation, CEL rules, defaulting, admission.
//
// A control plane starts from a copy of a seed: etcd's data directory of
// one that has the CRDs installed, built once per CRD set and binaries in
// the user's cache (seed.go). Installing the CRDs cost the API server about
// 4.5 of the 7.3 CPU seconds each start took; starting from the seed takes
// 3.2. SLUICE_TESTENV_NO_SEED=1 installs the CRDs on every start instead.
package testenv
