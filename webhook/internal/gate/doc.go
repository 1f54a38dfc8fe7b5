// Package gate decides, as kube-apiserver does, whether a Pod CREATE is
// sent to the mutating webhooks of a configuration: each webhook's
// namespace and object selectors, rules and match conditions (CEL,
// compiled and evaluated by the API server's own admission library,
// k8s.io/apiserver). `sluice policy eval` asks it before it evaluates the
// policies, so that what it prints is what the webhook would do.
package gate
