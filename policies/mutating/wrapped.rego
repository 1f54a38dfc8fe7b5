# PVCs a Dataset wraps.
#
# A Pod volume of a PVC that a ThinRuntime Dataset wraps (its one mount is
# pvc://<claim>; the webhook sets datasetVolumes[_].wrapped once it has
# checked the controller's mark against that Dataset) is a volume of the
# Dataset, as in Fluid: the other modules treat it as one, so a serverless
# Pod gets the Dataset's FUSE sidecar and the volume is rewritten to the
# FUSE mount (sidecar.rego), and a serverful Pod gets the Dataset's
# affinity (affinity.rego). Any other Pod keeps reading the PVC itself,
# not through the Dataset's FUSE: it is told so.
package sluice.mutating

import rego.v1

warnings contains msg if {
	not serverless
	some v in input.datasetVolumes
	v.wrapped
	msg := sprintf("volume %q mounts PVC %q, which dataset %s wraps: the Pod reads the PVC itself, not through the dataset's FUSE; label the Pod serverless.fluid.io/inject=true for a FUSE sidecar of the dataset, or mount the dataset's PVC %q", [v.volume, v.claim, dataset_ref(v.dataset), v.dataset.name])
}
