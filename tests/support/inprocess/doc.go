// Package inprocess starts Sluice's components in a test's own process against
// a tests/support/testenv control plane, the way the test packages under
// tests/ share: the webhook serving where envtest pointed the webhook
// configurations it installed.
package inprocess
