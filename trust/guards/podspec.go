package guards

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The host privileges of a user-written pod spec (a DataProcess's), as
// validating.guards[<namespace>].processPrivileges lists them
// (policies/validating/guards_pods.rego). Each names the field that
// reaches past the pod into the node; "<kind> *" allows every value of a
// named kind (capability, sysctl, runtimeClass, volume).
const (
	privHostNetwork  = "hostNetwork"
	privHostPID      = "hostPID"
	privHostIPC      = "hostIPC"
	privNodeName     = "nodeName"  // skips the scheduler and every taint
	privHostPort     = "hostPort"  // binds a port of the node
	privProbeHost    = "probeHost" // the kubelet connects from the node to a host of the pod's choice
	privPrivileged   = "privileged"
	privEscalation   = "allowPrivilegeEscalation"
	privSELinux      = "seLinuxOptions" // any label, e.g. spc_t, the unconfined container type
	privHostProcess  = "hostProcess"    // a Windows HostProcess container runs as the node
	privProcUnmasked = "procMount Unmasked"
	privSeccompOff   = "seccompProfile Unconfined"
	privAppArmorOff  = "appArmorProfile Unconfined"
	privCapability   = "capability "   // + the capability's name
	privSysctl       = "sysctl "       // + the sysctl's name
	privRuntimeClass = "runtimeClass " // + the RuntimeClass's name
	privVolume       = "volume "       // + the volume type's field name, e.g. "volume nfs"
)

// The deprecated pod annotations for AppArmor and seccomp profiles, which
// the Kubernetes versions that still read them apply like the
// securityContext's fields.
const (
	apparmorAnnotation  = "container.apparmor.security.beta.kubernetes.io/"
	seccompPodAnnot     = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnn = "container.seccomp.security.alpha.kubernetes.io/"
)

// namespacedVolumes are the volume types a pod may use without a host
// privilege: each reads objects of the pod's own namespace (or the API) or
// scratch space, never a node directory, a device or a network filesystem
// the node mounts. Every other type, including one a later Kubernetes adds,
// is judged as "volume <type>"; hostPath is judged by its path instead
// (rule host-path-volume).
var namespacedVolumes = map[string]bool{
	"configMap": true, "secret": true, "downwardAPI": true, "projected": true,
	"emptyDir": true, "persistentVolumeClaim": true, "ephemeral": true,
}

// podGuards adds a user-written pod spec's volumes (volumeGuards),
// tolerations and host privileges: every field of the spec that reaches
// the node (guards_podspec_test.go walks corev1.PodSpec and fails on a
// field that is neither judged here nor listed there as harmless).
func podGuards(field string, spec *corev1.PodSpec, f *Facts) {
	add := func(path, value string) { f.Privileges = append(f.Privileges, Value{Path: path, Value: value}) }
	volumeGuards(field+".volumes", spec.Volumes, f)
	f.Tolerations = append(f.Tolerations, tolerationValues(field+".tolerations", spec.Tolerations)...)
	if spec.NodeName != "" {
		add(field+".nodeName", privNodeName)
	}
	for _, host := range []struct {
		name string
		on   bool
	}{{privHostNetwork, spec.HostNetwork}, {privHostPID, spec.HostPID}, {privHostIPC, spec.HostIPC}} {
		if host.on {
			add(field+"."+host.name, host.name)
		}
	}
	if rc := spec.RuntimeClassName; rc != nil && *rc != "" {
		add(field+".runtimeClassName", privRuntimeClass+*rc)
	}
	if sc := spec.SecurityContext; sc != nil {
		at := field + ".securityContext"
		confinement(at, sc.SELinuxOptions, sc.WindowsOptions, sc.SeccompProfile, sc.AppArmorProfile, add)
		for i, s := range sc.Sysctls {
			add(fmt.Sprintf("%s.sysctls[%d]", at, i), privSysctl+s.Name)
		}
	}
	for i := range spec.InitContainers {
		containerGuards(fmt.Sprintf("%s.initContainers[%d]", field, i), &spec.InitContainers[i], add)
	}
	for i := range spec.Containers {
		containerGuards(fmt.Sprintf("%s.containers[%d]", field, i), &spec.Containers[i], add)
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		containerGuards(fmt.Sprintf("%s.ephemeralContainers[%d]", field, i), &c, add)
	}
}

// containerGuards adds a container's host privileges at field: host ports,
// probe and hook hosts, and its security context.
func containerGuards(field string, c *corev1.Container, add func(path, value string)) {
	for i, p := range c.Ports {
		if p.HostPort != 0 {
			add(fmt.Sprintf("%s.ports[%d].hostPort", field, i), privHostPort)
		}
	}
	handlerHost := func(at string, http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) {
		if http != nil && http.Host != "" {
			add(at+".httpGet.host", privProbeHost)
		}
		if tcp != nil && tcp.Host != "" {
			add(at+".tcpSocket.host", privProbeHost)
		}
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
		if p.probe != nil {
			handlerHost(field+"."+p.name, p.probe.HTTPGet, p.probe.TCPSocket)
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []struct {
			name    string
			handler *corev1.LifecycleHandler
		}{{"postStart", l.PostStart}, {"preStop", l.PreStop}} {
			if h.handler != nil {
				handlerHost(field+".lifecycle."+h.name, h.handler.HTTPGet, h.handler.TCPSocket)
			}
		}
	}
	sc := c.SecurityContext
	if sc == nil {
		return
	}
	at := field + ".securityContext"
	if sc.Privileged != nil && *sc.Privileged {
		add(at+".privileged", privPrivileged)
	}
	if sc.AllowPrivilegeEscalation != nil && *sc.AllowPrivilegeEscalation {
		add(at+".allowPrivilegeEscalation", privEscalation)
	}
	if sc.Capabilities != nil {
		for j, cp := range sc.Capabilities.Add {
			add(fmt.Sprintf("%s.capabilities.add[%d]", at, j), privCapability+string(cp))
		}
	}
	if sc.ProcMount != nil && *sc.ProcMount == corev1.UnmaskedProcMount {
		add(at+".procMount", privProcUnmasked)
	}
	confinement(at, sc.SELinuxOptions, sc.WindowsOptions, sc.SeccompProfile, sc.AppArmorProfile, add)
}

// confinement adds the fields of a pod's or a container's security context
// at field that lift the node's confinement of its processes: an SELinux
// label, a Windows HostProcess, an unconfined seccomp or AppArmor profile.
func confinement(field string, se *corev1.SELinuxOptions, win *corev1.WindowsSecurityContextOptions,
	seccomp *corev1.SeccompProfile, apparmor *corev1.AppArmorProfile, add func(path, value string)) {
	if se != nil && *se != (corev1.SELinuxOptions{}) {
		add(field+".seLinuxOptions", privSELinux)
	}
	if win != nil && win.HostProcess != nil && *win.HostProcess {
		add(field+".windowsOptions.hostProcess", privHostProcess)
	}
	if seccomp != nil && seccomp.Type == corev1.SeccompProfileTypeUnconfined {
		add(field+".seccompProfile.type", privSeccompOff)
	}
	if apparmor != nil && apparmor.Type == corev1.AppArmorProfileTypeUnconfined {
		add(field+".appArmorProfile.type", privAppArmorOff)
	}
}

// volumeGuards adds the host paths of volumes at field, and every volume
// of a type that is neither namespaced nor hostPath as "volume <type>".
func volumeGuards(field string, volumes []corev1.Volume, f *Facts) {
	f.HostPathVolumes = append(f.HostPathVolumes, hostPaths(field, volumes)...)
	for i, v := range volumes {
		if t := volumeType(v.VolumeSource); t != "" && t != "hostPath" && !namespacedVolumes[t] {
			f.Privileges = append(f.Privileges, Value{Path: fmt.Sprintf("%s[%d].%s", field, i, t), Value: privVolume + t})
		}
	}
}

// volumeType is the JSON name of the source's one set field ("" for none,
// which the API server refuses).
func volumeType(s corev1.VolumeSource) string {
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			return name
		}
	}
	return ""
}

// securityAnnotations adds the pod annotations at field that ask for an
// unconfined AppArmor or seccomp profile (the deprecated forms of the
// securityContext fields).
func securityAnnotations(field string, annotations map[string]string, f *Facts) {
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		v := strings.TrimSpace(annotations[k])
		at := fmt.Sprintf("%s[%q]", field, k)
		switch {
		case strings.HasPrefix(k, apparmorAnnotation) && v == "unconfined":
			f.Privileges = append(f.Privileges, Value{Path: at, Value: privAppArmorOff})
		case (k == seccompPodAnnot || strings.HasPrefix(k, seccompContainerAnn)) && v == "unconfined":
			f.Privileges = append(f.Privileges, Value{Path: at, Value: privSeccompOff})
		}
	}
}
