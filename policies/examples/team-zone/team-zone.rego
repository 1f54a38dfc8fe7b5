# Zones per team.
#
# data.sluice.config.custom.teamZones maps a namespace to the zones its
# Pods must run in. Every Pod of such a namespace that uses a dataset gets
# the required node affinity topology.kubernetes.io/zone In <zones>, which
# the webhook AND-s into each of the Pod's own required terms. A Pod whose
# nodeSelector names another zone could never be scheduled: it is denied.
package sluice.mutating

import rego.v1

required_requirements contains {"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones} if {
	count(input.datasetVolumes) > 0
	zones := data.sluice.config.custom.teamZones[input.request.namespace]
}

deny contains {"rule": "team-zone", "message": msg} if {
	count(input.datasetVolumes) > 0
	zones := data.sluice.config.custom.teamZones[input.request.namespace]
	zone := input.pod.spec.nodeSelector["topology.kubernetes.io/zone"]
	not zone in zones
	msg := sprintf("Pods in namespace %q run in zones %s; the nodeSelector asks for %q", [input.request.namespace, concat(", ", zones), zone])
}
