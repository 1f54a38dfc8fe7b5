package cachecleanup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Stage is how far a runtime's deletion has come; the cleanup release
// records it (charts/cachecleanup's stage), and the controller moves it
// on with an upgrade, so Helm's last-deployed time is when it began.
type Stage string

const (
	// StageFree: the engine's release still runs; only the free Job (for
	// engines that free their cache, engines.CacheFreer) runs.
	StageFree Stage = "free"
	// StageDrain: the engine's release is uninstalled and its pods stop;
	// the node Jobs wait (suspended) so that no worker writes behind them.
	StageDrain Stage = "drain"
	// StageClean: the node Jobs run.
	StageClean Stage = "clean"
)

// Labels every cleanup Job and pod carries, besides fluid.io/dataset and
// managed-by=sluice (which the controller's admission policies require of
// the objects it writes): the runtime they clean up after and its engine,
// which the runtime's reconciler is woken by.
const (
	LabelRuntime = "cleanup.sluice.io/runtime"
	LabelEngine  = "cleanup.sluice.io/engine"
	// LabelStep is "free" or "node" (set by the chart).
	LabelStep = "cleanup.sluice.io/step"
)

// Values are charts/cachecleanup's values (its values.yaml documents
// them).
type Values struct {
	Labels                map[string]string `json:"labels"`
	Stage                 Stage             `json:"stage"`
	BackoffLimit          int32             `json:"backoffLimit"`
	ActiveDeadlineSeconds int64             `json:"activeDeadlineSeconds"`
	Free                  FreeJob           `json:"free"`
	Nodes                 []NodeJob         `json:"nodes"`
}

// FreeJob is the Job that frees the cache through the engine; none when
// its pod has no containers.
type FreeJob struct {
	Pod PodValues `json:"pod"`
}

// PodValues are a Job's pod.
type PodValues struct {
	Spec corev1.PodSpec `json:"spec"`
}

// NodeJob is one node's Job: its name, the node, the host directories it
// removes and its pod.
type NodeJob struct {
	Job  string    `json:"job"`
	Node string    `json:"node"`
	Dirs []string  `json:"dirs"`
	Pod  PodValues `json:"pod"`
}

// Request is what a cleanup is built from.
type Request struct {
	// Runtime is the deleted runtime; its cleanCachePolicy bounds the Jobs.
	Runtime datav1alpha1.RuntimeObject
	// Engine is the runtime's engine type (e.g. juicefs).
	Engine string
	// Nodes are the nodes to clean (Plan).
	Nodes []Node
	// Free, when not nil, is the pod that frees the cache first
	// (engines.CacheFreer).
	Free *corev1.PodSpec
}

// Empty reports whether the request has nothing to do.
func (r Request) Empty() bool { return len(r.Nodes) == 0 && r.Free == nil }

// maxReleaseName keeps every Job name, <release>-<n>, a valid label value
// (63 characters) for up to a million nodes.
const maxReleaseName = 53 - 8

// releaseSuffix ends cleanup release names.
const releaseSuffix = "-cache-cleanup"

// ReleaseName is the Helm release of the runtime name's cleanup,
// "<name>-cache-cleanup"; a longer name keeps its start and gets a hash of
// the whole name, so that two runtimes never share a cleanup release.
func ReleaseName(name string) string {
	if len(name)+len(releaseSuffix) <= maxReleaseName {
		return name + releaseSuffix
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:8]
	keep := maxReleaseName - len(releaseSuffix) - len(hash) - 1
	return strings.TrimRight(name[:keep], "-.") + "-" + hash + releaseSuffix
}

// FreeJobName is the name of a release's free Job.
func FreeJobName(release string) string { return release + "-free" }

// NodeJobName is the name of a release's n-th node Job.
func NodeJobName(release string, n int) string { return fmt.Sprintf("%s-%d", release, n) }

// MountRoot is where a node Job's pod mounts the parent of each directory
// it removes: MountRoot/<n> for the n-th.
const MountRoot = "/sluice-cleanup"

// Build is the release values of the request, at StageFree.
func Build(release string, req Request) Values {
	rt := req.Runtime
	p := PolicyOf(rt.GetCleanCachePolicy())
	labels := map[string]string{
		datav1alpha1.LabelDataset: datav1alpha1.DatasetKey{Namespace: rt.GetNamespace(), Name: rt.GetName()}.DatasetID(),
		engines.LabelManagedBy:    "sluice",
		LabelEngine:               req.Engine,
	}
	if len(rt.GetName()) <= 63 {
		labels[LabelRuntime] = rt.GetName()
	}
	v := Values{
		Labels: labels, Stage: StageFree, BackoffLimit: p.MaxRetryAttempts, ActiveDeadlineSeconds: p.JobDeadlineSeconds(),
		Nodes: []NodeJob{},
	}
	if req.Free != nil {
		v.Free.Pod.Spec = attempt(*req.Free.DeepCopy(), p)
	}
	for i, n := range req.Nodes {
		v.Nodes = append(v.Nodes, NodeJob{Job: NodeJobName(release, i), Node: n.Name, Dirs: n.Dirs, Pod: PodValues{Spec: nodePod(n, rt.GetName(), p)}})
	}
	return v
}

// attempt bounds one pod: it never restarts in place (the Job retries),
// it may run for the grace period, and it gets no API credentials.
func attempt(spec corev1.PodSpec, p Policy) corev1.PodSpec {
	spec.RestartPolicy = corev1.RestartPolicyNever
	spec.ActiveDeadlineSeconds = ptr.To(p.GracePeriodSeconds)
	spec.AutomountServiceAccountToken = ptr.To(false)
	spec.EnableServiceLinks = ptr.To(false)
	return spec
}

// nodePod is the pod that removes a node's host cache directories of the
// runtime name: each directory's parent (<path>/.sluice/<namespace>) is
// mounted at MountRoot/<n>, and `rm -rf --` gets MountRoot/<n>/<name>, one
// argument per directory, with no shell and nothing of the user's in the
// argv (the paths are only hostPath data). rm does not follow the
// symbolic links it removes, so a link a worker left in its cache points
// nowhere rm goes. It runs as root (the engines' files are root's) on the
// node, whatever its taints, in an image one of the runtime's pods ran
// there.
func nodePod(n Node, name string, p Policy) corev1.PodSpec {
	argv := []string{"rm", "-rf", "--"}
	c := corev1.Container{
		Name: "remove", Image: n.Image, ImagePullPolicy: corev1.PullIfNotPresent,
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		SecurityContext: &corev1.SecurityContext{
			RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"DAC_OVERRIDE", "FOWNER"}},
		},
	}
	spec := corev1.PodSpec{
		NodeName: n.Name, ImagePullSecrets: n.PullSecrets,
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
	}
	dirType := corev1.HostPathDirectoryOrCreate
	for i, dir := range n.Dirs {
		vol, at := fmt.Sprintf("cache-%d", i), fmt.Sprintf("%s/%d", MountRoot, i)
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: path.Dir(dir), Type: &dirType}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: vol, MountPath: at})
		argv = append(argv, at+"/"+name)
	}
	c.Command = argv
	spec.Containers = []corev1.Container{c}
	return attempt(spec, p)
}

// At is v at stage s.
func (v Values) At(s Stage) Values {
	v.Stage = s
	return v
}

// Plain is v as chart values.
func (v Values) Plain() (map[string]any, error) { return engines.ToPlain(v) }

// Decode reads the values of an installed cleanup release.
func Decode(m map[string]any) (Values, error) {
	var v Values
	data, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(data, &v)
	}
	if err != nil {
		return Values{}, fmt.Errorf("reading cache cleanup values: %w", err)
	}
	return v, nil
}

// HasFree reports whether the release runs a free Job.
func (v Values) HasFree() bool { return len(v.Free.Pod.Spec.Containers) > 0 }
