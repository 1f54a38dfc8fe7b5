// Package ufsmeta counts what a Dataset holds in its under storage (its
// status.ufsTotal and status.fileNum) for engines whose metrics do not
// report it: the metadata Job the controller runs, which walks the
// Dataset's mount with `sluice ufs-count` (a fixed program, no shell), and
// how the controller reads its result back from the pod's termination
// message, without exec and without any API access from the pod.
package ufsmeta
