// Package affinity merges the node affinity a mutating decision asks for
// into a Pod: required requirements are AND-ed into every required term the
// Pod already has, required terms (one per dataset whose cache a Pod
// requires) are one choice AND-ed with the Pod's terms as Fluid combines
// them, preferred terms are added, and nothing of the user's is dropped.
// Applying the same decision twice changes nothing the second time.
package affinity
