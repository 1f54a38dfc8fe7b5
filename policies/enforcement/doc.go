// Package enforcement reads the enforcement section of the policy data
// (data.sluice.config.enforcement) and judges each rule that fired for an
// object: its mode (deny, warn or dryrun for a deny rule; apply or dryrun
// for a mutation rule), per namespace, and the exceptions that cover the
// object until they expire.
//
// Rego decides what each rule finds; this package decides, in one place,
// what is done with it. It runs after evaluation, with the time of the
// request, so that the decision cache (policy.Memo) keeps holding Rego's
// pure results and an exception stops applying at its expiry exactly,
// without a time builtin in the policies (which would turn the cache and
// partial evaluation off). The webhooks and the controller's reconcile
// check (trust/guardcheck) use it alike.
package enforcement
