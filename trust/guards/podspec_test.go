package guards

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// verdict is what podGuards makes of one field of the pod spec's types:
// harmless (with the reason), walked (its type's own fields each have a
// verdict), or judged: a hostile value of the field's type, and the one
// guard value podGuards must report for it.
type verdict struct {
	harmless string
	walk     bool
	hostile  any
	suffix   string // after the field's path, e.g. "[0]" for a list's first item
	value    string // the reported value
	list     string // "" for Privileges, else tolerations or hostPathVolumes
}

func harmless(why string) verdict { return verdict{harmless: why} }

func judged(hostile any, value string) verdict { return verdict{hostile: hostile, value: value} }

func judgedItem(hostile any, value string) verdict {
	return verdict{hostile: hostile, suffix: "[0]", value: value}
}

var walked = verdict{walk: true}

// Reasons shared by several fields.
const (
	placement    = "placement among the nodes whose taints the pod tolerates: taints fence nodes off (docs/security.md), whatever the affinity, selector or scheduler"
	lifecycle    = "the pod's lifecycle, restarts and scheduling order: no reach into the node"
	ownNamespace = "an object or identity of the pod's own namespace, which the API's RBAC governs, not the node"
	inContainer  = "acts inside the container, which the judged fields confine"
	ownName      = "the pod's own hostname and name resolution, inside its network namespace (hostNetwork is judged)"
	userInPod    = "the user inside the container: root there is not the node's while the judged fields confine it"
	podRequest   = "of a request the kubelet makes to the pod's own IP (the host is judged)"
	namespacedVo = "namespaced volume type (namespacedVolumes): "
)

// podSpecVerdicts has a verdict for every field of the types a pod spec is
// made of, down to the fields that reach the node. Keys are Type.Field.
var podSpecVerdicts = map[string]verdict{
	"PodSpec.Volumes":                       walked,
	"PodSpec.InitContainers":                walked,
	"PodSpec.Containers":                    walked,
	"PodSpec.EphemeralContainers":           walked,
	"PodSpec.RestartPolicy":                 harmless(lifecycle),
	"PodSpec.TerminationGracePeriodSeconds": harmless(lifecycle),
	"PodSpec.ActiveDeadlineSeconds":         harmless(lifecycle),
	"PodSpec.DNSPolicy":                     harmless(ownName),
	"PodSpec.NodeSelector":                  harmless(placement),
	"PodSpec.ServiceAccountName":            harmless(ownNamespace),
	"PodSpec.DeprecatedServiceAccount":      harmless(ownNamespace),
	"PodSpec.AutomountServiceAccountToken":  harmless(ownNamespace),
	"PodSpec.NodeName":                      judged("control-plane-1", privNodeName),
	"PodSpec.HostNetwork":                   judged(true, privHostNetwork),
	"PodSpec.HostPID":                       judged(true, privHostPID),
	"PodSpec.HostIPC":                       judged(true, privHostIPC),
	"PodSpec.ShareProcessNamespace":         harmless("shares processes among the pod's own containers"),
	"PodSpec.SecurityContext":               walked,
	"PodSpec.ImagePullSecrets":              harmless(ownNamespace),
	"PodSpec.Hostname":                      harmless(ownName),
	"PodSpec.Subdomain":                     harmless(ownName),
	"PodSpec.Affinity":                      harmless(placement),
	"PodSpec.SchedulerName":                 harmless(placement),
	"PodSpec.Tolerations":                   {hostile: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, suffix: "[0]", list: "tolerations"},
	"PodSpec.HostAliases":                   harmless(ownName + ": entries of the pod's own /etc/hosts"),
	"PodSpec.PriorityClassName":             harmless(lifecycle),
	"PodSpec.Priority":                      harmless(lifecycle),
	"PodSpec.DNSConfig":                     harmless(ownName),
	"PodSpec.ReadinessGates":                harmless(lifecycle),
	"PodSpec.RuntimeClassName":              judged(ptr.To("runc-debug"), privRuntimeClass+"runc-debug"),
	"PodSpec.EnableServiceLinks":            harmless("environment variables of the pod's own containers"),
	"PodSpec.PreemptionPolicy":              harmless(lifecycle),
	"PodSpec.Overhead":                      harmless("set from the RuntimeClass by its admission plugin; resource accounting only"),
	"PodSpec.TopologySpreadConstraints":     harmless(placement),
	"PodSpec.SetHostnameAsFQDN":             harmless(ownName),
	"PodSpec.OS":                            harmless("declares the pod's OS for validation only"),
	"PodSpec.HostUsers":                     harmless("false gives the pod a user namespace of its own, less reach than the default (true)"),
	"PodSpec.SchedulingGates":               harmless(lifecycle),
	"PodSpec.ResourceClaims":                harmless(ownNamespace + " (DRA's admission governs admin access to devices)"),
	"PodSpec.Resources":                     harmless("pod-level requests and limits"),
	"PodSpec.HostnameOverride":              harmless(ownName),
	"PodSpec.SchedulingGroup":               harmless(lifecycle),
	"PodSpec.EvictionResponders":            harmless(lifecycle),

	"Container.Name":                     harmless(inContainer),
	"Container.Image":                    harmless(inContainer + " (the image allow-list is for the engines' privileged images)"),
	"Container.Command":                  harmless(inContainer),
	"Container.Args":                     harmless(inContainer),
	"Container.WorkingDir":               harmless(inContainer),
	"Container.Ports":                    walked,
	"Container.EnvFrom":                  harmless(inContainer),
	"Container.Env":                      harmless(inContainer),
	"Container.Resources":                harmless("the container's requests and limits"),
	"Container.ResizePolicy":             harmless(lifecycle),
	"Container.RestartPolicy":            harmless(lifecycle),
	"Container.RestartPolicyRules":       harmless(lifecycle),
	"Container.VolumeMounts":             harmless("mounts the pod's volumes, which are judged; Bidirectional propagation needs privileged (API validation), which is judged"),
	"Container.VolumeDevices":            harmless("block devices of the pod's own claims (persistentVolumeClaim, ephemeral)"),
	"Container.LivenessProbe":            walked,
	"Container.ReadinessProbe":           walked,
	"Container.StartupProbe":             walked,
	"Container.Lifecycle":                walked,
	"Container.TerminationMessagePath":   harmless(inContainer),
	"Container.TerminationMessagePolicy": harmless(inContainer),
	"Container.ImagePullPolicy":          harmless(inContainer),
	"Container.SecurityContext":          walked,
	"Container.Stdin":                    harmless(inContainer),
	"Container.StdinOnce":                harmless(inContainer),
	"Container.TTY":                      harmless(inContainer),

	"EphemeralContainer.EphemeralContainerCommon": walked, // as a Container
	"EphemeralContainer.TargetContainerName":      harmless("shares the namespaces of a container of the same pod"),

	"ContainerPort.Name":          harmless("a name for the pod's own port"),
	"ContainerPort.HostPort":      judged(int32(8080), privHostPort),
	"ContainerPort.ContainerPort": harmless("a port of the pod's own IP"),
	"ContainerPort.Protocol":      harmless("a port of the pod's own IP"),
	"ContainerPort.HostIP":        harmless("the node address a host port binds: only with hostPort, which is judged"),

	"Probe.ProbeHandler":                  walked,
	"Probe.InitialDelaySeconds":           harmless(lifecycle),
	"Probe.TimeoutSeconds":                harmless(lifecycle),
	"Probe.PeriodSeconds":                 harmless(lifecycle),
	"Probe.SuccessThreshold":              harmless(lifecycle),
	"Probe.FailureThreshold":              harmless(lifecycle),
	"Probe.TerminationGracePeriodSeconds": harmless(lifecycle),
	"ProbeHandler.Exec":                   harmless(inContainer),
	"ProbeHandler.HTTPGet":                walked,
	"ProbeHandler.TCPSocket":              walked,
	"ProbeHandler.GRPC":                   harmless("the kubelet connects to the pod's own IP"),
	"Lifecycle.PostStart":                 walked,
	"Lifecycle.PreStop":                   walked,
	"Lifecycle.StopSignal":                harmless(lifecycle),
	"LifecycleHandler.Exec":               harmless(inContainer),
	"LifecycleHandler.HTTPGet":            walked,
	"LifecycleHandler.TCPSocket":          walked,
	"LifecycleHandler.Sleep":              harmless(lifecycle),
	"HTTPGetAction.Path":                  harmless(podRequest),
	"HTTPGetAction.Port":                  harmless(podRequest),
	"HTTPGetAction.Host":                  judged("127.0.0.1", privProbeHost),
	"HTTPGetAction.Scheme":                harmless(podRequest),
	"HTTPGetAction.HTTPHeaders":           harmless(podRequest),
	"HTTPGetAction.Protocol":              harmless(podRequest),
	"TCPSocketAction.Port":                harmless(podRequest),
	"TCPSocketAction.Host":                judged("10.0.0.1", privProbeHost),

	"PodSecurityContext.SELinuxOptions":           judged(&corev1.SELinuxOptions{Type: "spc_t"}, privSELinux),
	"PodSecurityContext.WindowsOptions":           walked,
	"PodSecurityContext.RunAsUser":                harmless(userInPod),
	"PodSecurityContext.RunAsGroup":               harmless(userInPod),
	"PodSecurityContext.RunAsNonRoot":             harmless(userInPod),
	"PodSecurityContext.SupplementalGroups":       harmless(userInPod),
	"PodSecurityContext.SupplementalGroupsPolicy": harmless(userInPod),
	"PodSecurityContext.FSGroup":                  harmless("ownership of the pod's own volumes"),
	"PodSecurityContext.Sysctls":                  judgedItem([]corev1.Sysctl{{Name: "kernel.msgmax", Value: "1"}}, privSysctl+"kernel.msgmax"),
	"PodSecurityContext.FSGroupChangePolicy":      harmless("ownership of the pod's own volumes"),
	"PodSecurityContext.SeccompProfile":           walked,
	"PodSecurityContext.AppArmorProfile":          walked,
	"PodSecurityContext.SELinuxChangePolicy":      harmless("how the pod's own volumes are relabelled"),

	"SecurityContext.Capabilities":             walked,
	"SecurityContext.Privileged":               judged(ptr.To(true), privPrivileged),
	"SecurityContext.SELinuxOptions":           judged(&corev1.SELinuxOptions{Type: "spc_t"}, privSELinux),
	"SecurityContext.WindowsOptions":           walked,
	"SecurityContext.RunAsUser":                harmless(userInPod),
	"SecurityContext.RunAsGroup":               harmless(userInPod),
	"SecurityContext.RunAsNonRoot":             harmless(userInPod),
	"SecurityContext.ReadOnlyRootFilesystem":   harmless(inContainer),
	"SecurityContext.AllowPrivilegeEscalation": judged(ptr.To(true), privEscalation),
	"SecurityContext.ProcMount":                judged(ptr.To(corev1.UnmaskedProcMount), privProcUnmasked),
	"SecurityContext.SeccompProfile":           walked,
	"SecurityContext.AppArmorProfile":          walked,

	"Capabilities.Add":  judgedItem([]corev1.Capability{"SYS_ADMIN"}, privCapability+"SYS_ADMIN"),
	"Capabilities.Drop": harmless("takes privileges away"),
	"WindowsSecurityContextOptions.GMSACredentialSpecName": harmless(userInPod),
	"WindowsSecurityContextOptions.GMSACredentialSpec":     harmless(userInPod),
	"WindowsSecurityContextOptions.RunAsUserName":          harmless(userInPod),
	"WindowsSecurityContextOptions.HostProcess":            judged(ptr.To(true), privHostProcess),
	"SeccompProfile.Type":                                  judged(corev1.SeccompProfileTypeUnconfined, privSeccompOff),
	"SeccompProfile.LocalhostProfile":                      harmless("a profile the node's administrator installed"),
	"AppArmorProfile.Type":                                 judged(corev1.AppArmorProfileTypeUnconfined, privAppArmorOff),
	"AppArmorProfile.LocalhostProfile":                     harmless("a profile the node's administrator installed"),

	"Volume.Name":         harmless("the volume's name in the pod"),
	"Volume.VolumeSource": walked,
	// Every other VolumeSource field is judged as "volume <type>" (the
	// allow-list namespacedVolumes): the walk checks that too.
	"VolumeSource.HostPath":              {hostile: &corev1.HostPathVolumeSource{Path: "/etc"}, value: "/etc", list: "hostPathVolumes"},
	"VolumeSource.ConfigMap":             harmless(namespacedVo + "a ConfigMap of the pod's namespace"),
	"VolumeSource.Secret":                harmless(namespacedVo + "a Secret of the pod's namespace"),
	"VolumeSource.DownwardAPI":           harmless(namespacedVo + "the pod's own fields"),
	"VolumeSource.Projected":             harmless(namespacedVo + "ConfigMaps, Secrets, the pod's fields and tokens of its namespace"),
	"VolumeSource.EmptyDir":              harmless(namespacedVo + "the pod's scratch space, within its limits"),
	"VolumeSource.PersistentVolumeClaim": harmless(namespacedVo + "a claim of the pod's namespace, bound to a volume the platform provides"),
	"VolumeSource.Ephemeral":             harmless(namespacedVo + "a claim made for the pod in its namespace, as persistentVolumeClaim"),
}

// TestEveryPodSpecFieldIsJudgedOrHarmless (audit N13) walks corev1.PodSpec
// by reflection, down through its containers (init and ephemeral too),
// security contexts, probes, hooks and volumes: every field must have a
// verdict, so a field a later Kubernetes adds fails here until someone
// decides what it reaches. Each judged field is set to a hostile value and
// podGuards must report exactly that value at exactly that field; every
// volume type but hostPath and the namespaced ones must be reported as
// "volume <type>".
func TestEveryPodSpecFieldIsJudgedOrHarmless(t *testing.T) {
	if !reflect.TypeFor[corev1.EphemeralContainerCommon]().ConvertibleTo(reflect.TypeFor[corev1.Container]()) {
		t.Fatal("EphemeralContainerCommon is no longer a Container: podGuards converts one to the other")
	}
	spec := &corev1.PodSpec{}
	seen := map[string]bool{}
	w := specWalker{t: t, root: spec, seen: seen}
	w.walk(reflect.ValueOf(spec).Elem(), "podSpec")
	for key := range podSpecVerdicts {
		if !seen[key] {
			t.Errorf("verdict for %s, which the walk never met: remove it or walk its type", key)
		}
	}
	for name := range namespacedVolumes {
		key := "VolumeSource." + strings.ToUpper(name[:1]) + name[1:]
		if v, ok := podSpecVerdicts[key]; !ok || !strings.HasPrefix(v.harmless, namespacedVo) {
			t.Errorf("namespacedVolumes allows %s but the test gives no reason (%s)", name, key)
		}
	}
}

type specWalker struct {
	t    *testing.T
	root *corev1.PodSpec
	seen map[string]bool
}

// walk checks every field of the struct v, found at path in the root spec.
func (w specWalker) walk(v reflect.Value, path string) {
	typeName := v.Type().Name()
	if typeName == "EphemeralContainerCommon" {
		typeName = "Container"
	}
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		key := typeName + "." + sf.Name
		w.seen[key] = true
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		at := path + "." + name
		if sf.Anonymous {
			at = path
		}
		vd, ok := podSpecVerdicts[key]
		if !ok && typeName == "VolumeSource" {
			vd, ok = judged(reflect.New(sf.Type.Elem()).Interface(), privVolume+name), true
		}
		field := v.Field(i)
		switch {
		case !ok:
			w.t.Errorf("%s (at %s) is neither judged by podGuards nor listed as harmless: decide whether it reaches the node", key, at)
		case vd.walk:
			switch field.Kind() {
			case reflect.Pointer:
				field.Set(reflect.New(sf.Type.Elem()))
				w.walk(field.Elem(), at)
			case reflect.Slice:
				field.Set(reflect.MakeSlice(sf.Type, 1, 1))
				w.walk(field.Index(0), at+"[0]")
			case reflect.Struct:
				w.walk(field, at)
			default:
				w.t.Fatalf("%s is %s: only structs are walked", key, field.Kind())
			}
		case vd.hostile != nil:
			field.Set(reflect.ValueOf(vd.hostile))
			w.judge(key, at+vd.suffix, vd)
			field.Set(reflect.Zero(sf.Type))
		}
	}
}

// judge checks that podGuards reports the one hostile value in the root.
func (w specWalker) judge(key, at string, vd verdict) {
	var f Facts
	podGuards("podSpec", w.root, &f)
	want := Facts{Privileges: []Value{{Path: at, Value: vd.value}}}
	switch vd.list {
	case "tolerations":
		want = Facts{Tolerations: []Value{{Path: at, Value: vd.value}}}
	case "hostPathVolumes":
		want = Facts{HostPathVolumes: []Value{{Path: at, Value: vd.value}}}
	}
	if diff := cmp.Diff(want, f, cmpopts.EquateEmpty()); diff != "" {
		w.t.Errorf("%s set to %v: podGuards reports (-want +got):\n%s", key, vd.hostile, diff)
	}
}

// TestPodGuardsJudgeValuesNotPresence: the fields judged by value are
// reported only for the values that lift the node's confinement.
func TestPodGuardsJudgeValuesNotPresence(t *testing.T) {
	confined := &corev1.SecurityContext{
		Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false), ProcMount: ptr.To(corev1.DefaultProcMount),
		SELinuxOptions: &corev1.SELinuxOptions{}, WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(false)},
		SeccompProfile:  &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To("k8s-default")},
		Capabilities:    &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	spec := &corev1.PodSpec{
		RuntimeClassName: ptr.To(""),
		SecurityContext:  &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}},
		Containers: []corev1.Container{{Name: "c", SecurityContext: confined, Ports: []corev1.ContainerPort{{ContainerPort: 80}},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz"}}}}},
		Volumes: []corev1.Volume{
			{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "p", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}},
		},
	}
	var f Facts
	podGuards("podSpec", spec, &f)
	if diff := cmp.Diff(Facts{}, f, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("a confined pod spec is reported (-want +got):\n%s", diff)
	}
}

// TestDataProcessGuardsBeyondThePodSpec: a script processor's volumes are
// judged like a pod's, and the processor's pod annotations that ask for
// an unconfined AppArmor or seccomp profile are privileges too.
func TestDataProcessGuardsBeyondThePodSpec(t *testing.T) {
	dp := &datav1alpha1.DataProcess{Spec: datav1alpha1.DataProcessSpec{Processor: datav1alpha1.Processor{
		PodMetadata: datav1alpha1.PodMetadata{Annotations: map[string]string{
			"container.apparmor.security.beta.kubernetes.io/script": "unconfined",
			"container.apparmor.security.beta.kubernetes.io/other":  "runtime/default",
			"seccomp.security.alpha.kubernetes.io/pod":              "unconfined",
			"example.com/note": "unconfined",
		}},
		Script: &datav1alpha1.ScriptProcessor{Volumes: []corev1.Volume{
			{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
			{Name: "share", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "/"}}},
			{Name: "etc", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}},
		}},
	}}}
	want := Facts{
		HostPathVolumes: []Value{{Path: "spec.processor.script.volumes[2].hostPath", Value: "/etc"}},
		Privileges: []Value{
			{Path: `spec.processor.podMetadata.annotations["container.apparmor.security.beta.kubernetes.io/script"]`, Value: privAppArmorOff},
			{Path: `spec.processor.podMetadata.annotations["seccomp.security.alpha.kubernetes.io/pod"]`, Value: privSeccompOff},
			{Path: "spec.processor.script.volumes[1].nfs", Value: "volume nfs"},
		},
	}
	if diff := cmp.Diff(want, OfUpdate(dp, nil), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("DataProcess guards (-want +got):\n%s", diff)
	}
}
