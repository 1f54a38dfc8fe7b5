// Package randompod makes random changes to the fixture Pods, of the kinds
// mutators and users make, for the property tests that compare the
// admission fast path with its oracles.
package randompod
