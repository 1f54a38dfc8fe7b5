# Cross-namespace sidecars (audit M12).
#
# A serverless Pod that uses a dataset whose runtime is in another namespace
# (allowed by crossNamespace.allow, or a reference dataset of another
# namespace's Dataset) gets a sidecar copied from that runtime's FUSE
# template: a privileged container whose image the other namespace's users
# chose. It is injected only when the image is from a registry the Pod's
# namespace may use itself: the default guards' imagePrefixes of the Pod's
# namespace (data.sluice.config.validating.guards, namespace or "*";
# policies/validating/guards.rego). Serverful Pods get no container from
# the other namespace and are not judged.
#
# The sidecar is copied from the controller's record of the FUSE template
# it rendered for the runtime (a PodTemplate in the controller's
# namespace), never from the runtime namespace's FUSE DaemonSet, whose
# command, args and env that namespace's users may change. Without a record
# (a runtime the controller has not rendered since it started keeping them,
# or a controller run without --fuse-record-namespace) there is no sidecar
# to inject, and the Pod is denied.
package sluice.mutating

import rego.v1

consumer_image_prefixes := p if {
	p := data.sluice.config.validating.guards[input.request.namespace].imagePrefixes
} else := p if {
	p := data.sluice.config.validating.guards["*"].imagePrefixes
} else := []

# image_repository cuts the tag or digest off an image reference.
image_repository(image) := regex.replace(regex.replace(image, `@.*$`, ""), `:[^/]*$`, "")

consumer_allows_image(_) if "*" in consumer_image_prefixes

consumer_allows_image(image) if {
	some prefix in consumer_image_prefixes
	image_repository(image) == trim_suffix(prefix, "/")
}

consumer_allows_image(image) if {
	some prefix in consumer_image_prefixes
	startswith(image_repository(image), sprintf("%s/", [trim_suffix(prefix, "/")]))
}

# METADATA
# description: "A serverless Pod gets the FUSE sidecar of another namespace's runtime only if its image is allowed by the Pod's namespace's imagePrefixes."
deny contains {"rule": "cross-namespace-sidecar-image", "message": msg} if {
	serverless
	some v in input.datasetVolumes
	v.dataset.runtime.fuse
	v.dataset.runtime.namespace != input.request.namespace
	v.dataset.runtime.fuseRecord
	image := object.get(v.dataset.runtime, "fuseImage", "")
	not consumer_allows_image(image)
	allowed := concat(", ", sort(consumer_image_prefixes))
	msg := sprintf("volume %q uses dataset %s, whose FUSE sidecar runs image %q chosen in namespace %q: it is not from a registry namespace %q allows (allowed: %s; policy data validating.guards.imagePrefixes)", [
		v.volume, dataset_ref(v.dataset), image, v.dataset.runtime.namespace, input.request.namespace, allowed,
	])
}

# METADATA
# description: "A serverless Pod using another namespace's runtime needs the controller's record of that runtime's FUSE template."
deny contains {"rule": "cross-namespace-sidecar-record", "message": msg} if {
	serverless
	some v in input.datasetVolumes
	v.dataset.runtime.fuse
	v.dataset.runtime.namespace != input.request.namespace
	not v.dataset.runtime.fuseRecord
	msg := sprintf("volume %q uses dataset %s, whose runtime %s/%s is in namespace %q: its FUSE sidecar is built only from the template the Sluice controller recorded for that runtime, and there is none (is the controller running with --fuse-record-namespace, and has it reconciled the runtime?)", [
		v.volume, dataset_ref(v.dataset), v.dataset.runtime.namespace, v.dataset.runtime.name, v.dataset.runtime.namespace,
	])
}
