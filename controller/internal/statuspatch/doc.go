// Package statuspatch is the controller's one way of writing an object's
// status over the status as stored, when other writers and a lagging
// informer cache may be in between: a merge patch of the fields that
// changed, with the resourceVersion as read as its precondition (optimistic
// lock); when the API server refuses it, the object is read again from the
// API server and the change computed again over that. The reconcilers write
// the status of their objects, and of the Datasets they bind or reference,
// through Write; docs/design/dataset-phases.md lists the Dataset's writers
// (the claims on a Dataset are read live and updated, package claim).
package statuspatch
