// Package controller holds tests of `sluice controller` against a real
// kube-apiserver: the manager runs in-process and the tests create objects
// the way users and other components do.
//
// The tests run in parallel (t.Parallel as their first line): each works
// in namespaces of its own (env.Namespace), and what it creates outside
// them is named after its namespace (Nodes, PVs, ThinRuntimeProfiles, the
// policy ConfigMaps it adds to policyNamespace, which guard its namespace
// only) or is told apart by its runtime's UID (FUSE records in
// fuseRecords). What they read of the shared controller is keyed by their
// namespace too: metric series (controllerMetrics) and request counts
// (controllerRequests) carry it, and the host ports they check are their
// runtimes' (hostPorts hands out disjoint ports to every runtime). A test
// that needs the controller to itself stays serial, with the reason in
// its comment; go test runs the serial tests before the parallel ones.
package controller
