# FUSE debug logging on request.
#
# The FUSE sidecar of a Pod labelled sluice.example.com/fuse-debug=true gets
# FUSE_LOG_LEVEL=debug (a variable the FUSE image is assumed to read).
# Rules sidecar_env, sidecar_limits and sidecar_requests of the default
# sidecar.rego collect what every sidecar gets; a module adds to them.
package sluice.mutating

import rego.v1

sidecar_env contains {"name": "FUSE_LOG_LEVEL", "value": "debug"} if {
	input.pod.metadata.labels["sluice.example.com/fuse-debug"] == "true"
}
