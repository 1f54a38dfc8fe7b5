// Package crd holds tests that prove Sluice's CustomResourceDefinitions against a real
// kube-apiserver and against Fluid's published schemas: every kind is served,
// Fluid manifests apply unchanged, CEL rules reject bad objects with their
// messages, and defaults are applied.
package crd
