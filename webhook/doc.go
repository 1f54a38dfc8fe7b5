// Package webhook serves Sluice's admission webhooks (`sluice webhook`): a
// controller-runtime manager whose caches feed the policy input, whose
// webhook server serves HTTPS with certificates hot-reloaded from a
// directory, and whose policy reloader recompiles the Rego bundle when policy
// ConfigMaps change. /readyz fails until the bundle has compiled and the
// caches have synced.
package webhook
