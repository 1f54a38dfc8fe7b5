// Package hostports allocates the ports of runtimes whose components run
// on the host network, where two runtimes' pods on one node cannot listen
// on the same port: one Allocator for the whole controller (every engine's
// runtimes share the nodes' ports), handing out ports of one range (the
// controller's --runtime-node-port-range, the chart's
// controller.hostPortRange), never one another runtime holds.
//
// What a runtime holds is recorded in its status.hostPorts (by the runtime
// reconciler, before the release that listens on them is rendered), so the
// API server holds the allocation: an Allocator loads every runtime's
// record once, before its first assignment, and a restarted controller or a
// new leader starts from what the last one recorded. After that the
// Allocator's memory is authoritative: a port it assigned is held although
// the record's write failed, until the runtime's next assignment or its
// release when the runtime is gone.
package hostports
