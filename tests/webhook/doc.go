// Package webhook holds end-to-end tests of the mutating webhook: the real
// kube-apiserver calls Sluice's webhook server (installed with a caBundle)
// and the stored Pods carry the mutation, denials reach the client, and
// policy ConfigMaps are hot-reloaded.
package webhook
