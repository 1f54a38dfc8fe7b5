// Package demo is the scripted story `sluice dev --demo` (make demo) plays
// on a fresh dev cluster, and its end-to-end test: each step acts as a user
// would, then waits for what the components (kube-scheduler, kwok, the
// webhook, the controller) do, printing it as observed; the first step not
// observed in time fails the story. The demo writes no object's status.
package demo
