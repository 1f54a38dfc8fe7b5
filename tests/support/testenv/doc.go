// Package testenv starts a real kube-apiserver and etcd (built into bin/ by
// the tools modules) with Sluice's CRDs installed, for tests that need the API
// server to decide: schema validation, CEL rules, defaulting, admission.
package testenv
