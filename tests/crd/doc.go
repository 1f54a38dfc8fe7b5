// Package crd holds tests that prove Sluice's CustomResourceDefinitions against a real
// kube-apiserver and against Fluid's published schemas: every kind is served,
// Fluid manifests apply unchanged, CEL rules reject bad objects with their
// messages, defaults are applied, and the kinds Sluice serves but refuses
// (EFCRuntime, VineyardRuntime, CacheRuntime, CacheRuntimeClass) refuse
// Fluid's manifests naming why.
package crd
