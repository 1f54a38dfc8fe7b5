package jindo

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Default RPC ports of the JindoCache namespace service (master), its Raft
// peers and the storage service (worker).
const (
	DefaultMasterRPCPort = 8101
	DefaultRaftPort      = 8103
	DefaultWorkerRPCPort = 6101
)

// reservedLabels are the labels the chart sets; user labels may not
// override them, since selectors and the controller depend on them.
var reservedLabels = []string{
	"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by",
	"fluid.io/dataset", "fluid.io/dataset-placement", "role",
}

// masterOf configures the masters: one, or three for Raft HA.
func masterOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) (master, error) {
	spec := rt.Spec.Master
	m := master{Replicas: 1, RPCPort: hostPort(rt, "master.rpc", DefaultMasterRPCPort)}
	p, err := podOf(ds, rt, "spec.master", !spec.Disabled, spec.Resources, spec.Env, spec.NodeSelector, spec.Tolerations,
		spec.Labels, spec.PodMetadata, spec.VolumeMounts, spec.ImagePullSecrets)
	if err != nil || !p.Enabled {
		return master{pod: p}, err
	}
	m.pod = p
	switch spec.Replicas {
	case 0, 1:
	case 3:
		m.Replicas, m.RaftPort = 3, hostPort(rt, "master.raft", DefaultRaftPort)
	default:
		return master{}, engines.Invalid("spec.master.replicas is %d; JindoCache runs 1 master or 3 (Raft HA)", spec.Replicas)
	}
	if err := setPorts("spec.master.ports", spec.Ports, map[string]*int{"rpc": &m.RPCPort, "raft": &m.RaftPort}); err != nil {
		return master{}, err
	}
	if m.Replicas != 3 {
		m.RaftPort = 0
	}
	var addrs, raft []string
	for i := range m.Replicas {
		host := fmt.Sprintf("%s-master-%d.%s-master.%s.svc", rt.Name, i, rt.Name, rt.Namespace)
		m.Hosts = append(m.Hosts, host)
		addrs = append(addrs, fmt.Sprintf("%s:%d", host, m.RPCPort))
		raft = append(raft, fmt.Sprintf("%s:%d:0", host, m.RaftPort))
	}
	m.Address = strings.Join(addrs, ",")
	if m.RaftPort != 0 {
		m.RaftConf = strings.Join(raft, ",")
	}
	return m, nil
}

// workerOf configures the cache workers; spec.replicas is their number.
func workerOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) (worker, error) {
	spec := rt.Spec.Worker
	p, err := podOf(ds, rt, "spec.worker", !spec.Disabled, spec.Resources, spec.Env, spec.NodeSelector, spec.Tolerations,
		spec.Labels, spec.PodMetadata, spec.VolumeMounts, spec.ImagePullSecrets)
	if err != nil {
		return worker{}, err
	}
	w := worker{pod: p, Replicas: rt.Spec.Replicas, RPCPort: hostPort(rt, "worker.rpc", DefaultWorkerRPCPort)}
	return w, setPorts("spec.worker.ports", spec.Ports, map[string]*int{"rpc": &w.RPCPort})
}

// fuseOf configures the FUSE client. Without masters and workers it reads
// the single mount directly ("fuseOnly").
func fuseOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime, readOnly bool) (fuse, error) {
	spec := rt.Spec.Fuse
	p, err := podOf(ds, rt, "spec.fuse", !spec.Disabled, spec.Resources, spec.Env, spec.NodeSelector, spec.Tolerations,
		spec.Labels, spec.PodMetadata, nil, spec.ImagePullSecrets)
	if err != nil {
		return fuse{}, err
	}
	mountPath := FusePath(ds.Namespace, ds.Name)
	f := fuse{pod: p, Args: spec.Args, MountPath: mountPath, HostPath: mountPath[:strings.LastIndex(mountPath, "/")],
		LabelKey: datav1alpha1.KeyOf(ds).FuseLabelKey()}
	// FUSE starts only on nodes where the CSI plugin staged the dataset.
	f.NodeSelector = union(spec.NodeSelector, map[string]string{f.LabelKey: "true"})
	if len(f.Args) == 0 {
		f.Args = defaultFuseArgs(readOnly)
	}
	if rt.Spec.Master.Disabled && rt.Spec.Worker.Disabled {
		f.Mode = "fuseOnly"
		// The kubelet expands $(VAR) in args: the mount point passes as it is.
		f.Args = append(slices.Clone(f.Args), dataop.NoExpand("-ouri="+ds.Spec.Mounts[0].MountPoint))
	}
	return f, nil
}

// defaultFuseArgs are the FUSE options unless spec.fuse.args replaces them:
// long kernel caching for read-only datasets, none for writable ones. The
// client's own metrics listener is off: on the host network, two datasets'
// clients on one node would contend for its port.
func defaultFuseArgs(readOnly bool) []string {
	if readOnly {
		return []string{"-oro", "-okernel_cache", "-oattr_timeout=7200", "-oentry_timeout=7200", "-onegative_timeout=7200", "-ometrics_port=0"}
	}
	return []string{"-oauto_cache", "-oattr_timeout=0", "-oentry_timeout=0", "-onegative_timeout=0", "-ometrics_port=0"}
}

// podOf gathers a component's pod settings: runtime-wide labels and
// annotations first, the component's on top; the dataset's tolerations plus
// the component's; the component's pull secrets, else the runtime's.
func podOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime, field string, enabled bool, res corev1.ResourceRequirements,
	env, nodeSelector map[string]string, tolerations []corev1.Toleration, labels map[string]string, pm datav1alpha1.PodMetadata,
	mounts []corev1.VolumeMount, pullSecrets []corev1.LocalObjectReference) (pod, error) {
	if !enabled {
		return pod{}, nil
	}
	p := pod{
		Enabled: true, Resources: res, Env: env, NodeSelector: nodeSelector,
		Tolerations:      append(slices.Clone(ds.Spec.Tolerations), tolerations...),
		Labels:           union(rt.Spec.Labels, rt.Spec.PodMetadata.Labels, labels, pm.Labels),
		Annotations:      union(rt.Spec.PodMetadata.Annotations, pm.Annotations),
		VolumeMounts:     mounts,
		ImagePullSecrets: pullSecrets,
	}
	if len(p.ImagePullSecrets) == 0 {
		p.ImagePullSecrets = rt.Spec.ImagePullSecrets
	}
	for _, k := range reservedLabels {
		if _, ok := p.Labels[k]; ok {
			return pod{}, engines.Invalid("%s labels (spec.labels, spec.podMetadata or the component's) set %q, which the engine sets itself", field, k)
		}
	}
	for k := range env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return pod{}, engines.Invalid("%s.env: %q is not an environment variable name", field, k)
		}
	}
	for i, m := range mounts {
		if !slices.ContainsFunc(rt.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name }) {
			return pod{}, engines.Invalid("%s.volumeMounts[%d] mounts %q, which is not in spec.volumes", field, i, m.Name)
		}
	}
	return p, nil
}

// reservedVolumes are the chart's own pod volume names.
var reservedVolumes = []string{"config", "credentials", "meta", "fuse-mount", "fuse-device"}

// checkVolumes rejects spec.volumes whose names the chart uses itself.
func checkVolumes(vols []corev1.Volume) error {
	for i, v := range vols {
		if slices.Contains(reservedVolumes, v.Name) || strings.HasPrefix(v.Name, "cache-") || strings.HasPrefix(v.Name, "ufs-") {
			return engines.Invalid("spec.volumes[%d].name %q is used by the engine; rename it (reserved: %s, cache-*, ufs-*)",
				i, v.Name, strings.Join(reservedVolumes, ", "))
		}
	}
	return nil
}

// setPorts applies a component's named ports over the defaults.
func setPorts(field string, ports map[string]int, into map[string]*int) error {
	for _, name := range slices.Sorted(maps.Keys(ports)) {
		dst, ok := into[name]
		if !ok {
			return engines.Invalid("%s[%s]: the component has ports %s", field, name, strings.Join(slices.Sorted(maps.Keys(into)), ", "))
		}
		if p := ports[name]; p < 1 || p > 65535 {
			return engines.Invalid("%s[%s] is %d, not a port number", field, name, p)
		}
		*dst = ports[name]
	}
	return nil
}
