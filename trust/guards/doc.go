// Package guards extracts from a data.fluid.io object the values the
// default guard rules judge (policies/validating/guards*.rego): images,
// tieredstore and option cache paths, hostPath volumes, local:// paths,
// tolerations, a DataProcess pod's host privileges, a ThinRuntime's
// overrides of its profile, and the values that reach a container with
// host privileges (trust.Privileged). The validating webhook gives them
// to the policies as facts.guards; the controller judges the same facts
// with the same rules before it renders (trust/guardcheck), so a spec
// stored while the webhook was unreachable is not deployed unjudged.
package guards
