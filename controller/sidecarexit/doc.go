// Package sidecarexit ends the container-mode FUSE sidecars of Pods that
// end (a Job's): once every app container of such a Pod has ended for good,
// it annotates the Pod sidecar.sluice.io/apps-done=true, which the
// sidecars' wrapper (webhook/mutating/sidecar) reads through the downward
// API before it stops the FUSE process. Native sidecars need none of it.
// docs/design/sidecar-exit.md gives the reasons.
package sidecarexit
