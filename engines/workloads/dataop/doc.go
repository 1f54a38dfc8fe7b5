// Package dataop builds the values of charts/dataop, the Job (or CronJob) that
// runs one data operation. Release applies what every operation kind shares
// (policy and schedule, pod metadata, placement merged with the runAfter
// affinity, the kind and name labels) to the pod an engine or
// engines/workloads/process built; the rest are the pieces those pods are made
// of: argv steps run in order, arguments safe from the kubelet's $(VAR)
// expansion, option flags, images, and local:// or pvc:// locations.
package dataop
