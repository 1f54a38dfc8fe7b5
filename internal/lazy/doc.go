// Package lazy holds the values a package computes once, on first use, and
// that the webhook computes before it reports ready (Build), so that its
// first admissions do not pay for them: tables derived by reflection over
// the API (trust's field tables), compiled schemas.
//
// Every package-level value computed once goes through Value or Values
// rather than sync.OnceValue: TestPackageLevelOncesAreRegistered
// enumerates the module's declarations, so that a new one cannot slip past
// Build. Before Build, trust's tables took a race build of the webhook
// over a second on its first runtime admission on an idle machine, and
// more than the webhook configurations' 3 s on a loaded one.
package lazy
