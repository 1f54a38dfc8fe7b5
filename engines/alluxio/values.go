package alluxio

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Default images: Alluxio 2.9, the line Fluid's AlluxioRuntime targets. The
// image carries the FUSE client too.
const (
	DefaultImage    = "alluxio/alluxio"
	DefaultImageTag = "2.9.4"
)

// DefaultImages are the engine's built-in default images.
var DefaultImages = []engines.DefaultImage{{Name: "alluxio", Repository: DefaultImage, Tag: DefaultImageTag}}

// Paths inside the Alluxio containers.
const (
	confDir    = "/opt/alluxio/conf"
	journalDir = "/journal"
)

// release is the chart's values (charts/alluxio/values.yaml documents
// them).
type release struct {
	Name         string               `json:"name"`
	Namespace    string               `json:"namespace"`
	DatasetID    string               `json:"datasetID"`
	Placement    string               `json:"placement"`
	Image        image                `json:"image"`
	FuseImage    image                `json:"fuseImage"`
	Tolerations  []corev1.Toleration  `json:"tolerations"`
	NodeAffinity *corev1.NodeSelector `json:"nodeAffinity"`
	Prometheus   bool                 `json:"prometheus"`
	// Config maps a file of the <name>-config ConfigMap to its properties,
	// escaped for the .properties format.
	Config    map[string]map[string]string `json:"config"`
	UFSMounts []nestedMount                `json:"ufsMounts"`
	// MountsDigest is engines.MountsDigest of the Dataset, on the
	// StatefulSets and the mount Job.
	MountsDigest string       `json:"mountsDigest"`
	MountJob     mountJob     `json:"mountJob"`
	Master       masterValues `json:"master"`
	Worker       workerValues `json:"worker"`
	Fuse         fuseValues   `json:"fuse"`
	// HadoopConfig is the spec.hadoopConfig ConfigMap the masters, workers
	// and FUSE mount read-only at /hdfs-config (nil without one).
	HadoopConfig *hadoopConfig `json:"hadoopConfig"`
}

type image struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	PullPolicy string `json:"pullPolicy"`
}

type masterValues struct {
	podValues
	containerValues
	Replicas     int32                `json:"replicas"`
	HA           bool                 `json:"ha"`
	Volumes      []corev1.Volume      `json:"volumes"`
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
	JobMaster    containerValues      `json:"jobMaster"`
	// Mounter is the sidecar that mounts nested under storages.
	Mounter containerValues `json:"mounter"`
	// APIGateway is the Alluxio proxy of spec.apiGateway (nil unless
	// enabled), reading proxy.properties.
	APIGateway *containerValues `json:"apiGateway"`
}

type workerValues struct {
	podValues
	containerValues
	Replicas     int32                `json:"replicas"`
	Volumes      []corev1.Volume      `json:"volumes"`
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
	JobWorker    containerValues      `json:"jobWorker"`
}

type fuseValues struct {
	podValues
	containerValues
	// Volumes are the spec.volumes spec.fuse.volumeMounts name.
	Volumes   []corev1.Volume `json:"volumes,omitempty"`
	Args      []string        `json:"args"`
	HostPath  string          `json:"hostPath"`
	MountPath string          `json:"mountPath"`
}

// plan computes the release of a runtime serving a Dataset. Properties
// layer as in Fluid: computed ones, then spec.properties (which may
// override any of them), then each component's own.
func (e Engine) plan(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) (*release, error) {
	if err := checkUserProperties(rt); err != nil {
		return nil, err
	}
	hadoop, hadoopProps, err := e.planHadoopConfig(rt)
	if err != nil {
		return nil, err
	}
	fuseArgs, fuseProps, err := fuseClient(ds, rt)
	if err != nil {
		return nil, err
	}
	rs, err := planRestore(ds)
	if err != nil {
		return nil, err
	}
	if err := checkImages(rt); err != nil {
		return nil, err
	}
	u, err := planUFS(ds)
	if err != nil {
		return nil, err
	}
	t, err := planTiers(rt.Spec.TieredStore, rt.Namespace, rt.Name)
	if err != nil {
		return nil, err
	}
	replicas := rt.Spec.Master.Replicas
	if replicas == 0 {
		replicas = 1
	}
	if replicas < 0 || replicas%2 == 0 {
		return nil, engines.Invalid("spec.master.replicas: %d masters cannot form an embedded-journal quorum; use an odd number", replicas)
	}
	// FUSE pods do not mount the workers' tier directories, so clients read
	// through the worker's RPC rather than short-circuit.
	computed := map[string]string{"alluxio.user.short.circuit.enabled": "false"}
	ports := map[string]map[string]int{}
	for _, c := range []struct {
		name, field string
		defs        []portDef
		override    map[string]int
	}{
		// On the host network, over the ports the controller allocated.
		{"master", "spec.master.ports", masterPortDefs, hostPortsOver(rt, "master", rt.Spec.Master.Ports)},
		{"jobMaster", "spec.jobMaster.ports", jobMasterPortDefs, hostPortsOver(rt, "jobMaster", rt.Spec.JobMaster.Ports)},
		{"worker", "spec.worker.ports", workerPortDefs, hostPortsOver(rt, "worker", rt.Spec.Worker.Ports)},
		{"jobWorker", "spec.jobWorker.ports", jobWorkerPortDefs, hostPortsOver(rt, "jobWorker", rt.Spec.JobWorker.Ports)},
	} {
		if ports[c.name], err = resolvePorts(c.field, c.defs, c.override, computed); err != nil {
			return nil, err
		}
	}
	if rt.Spec.APIGateway.Enabled {
		if ports["apiGateway"], err = resolvePorts("spec.apiGateway.ports", proxyPortDefs, hostPortsOver(rt, "apiGateway", rt.Spec.APIGateway.Ports), computed); err != nil {
			return nil, err
		}
	}
	masterAddresses(computed, rt, replicas, ports["master"], ports["jobMaster"])
	if !rt.Spec.DisablePrometheus {
		computed["alluxio.metrics.conf.file"] = confDir + "/metrics.properties"
	}
	if n := rt.Spec.Data.Replicas; n > 0 {
		computed["alluxio.user.file.replication.max"] = strconv.Itoa(int(n))
	}
	// spec.hadoopConfig's files win over spec.properties, as in Fluid.
	base := engines.Merge(computed, t.props, u.props, rt.Spec.Properties, hadoopProps)
	r := &release{
		Name: rt.Name, Namespace: rt.Namespace, DatasetID: datasetID(ds), Placement: placement(ds),
		Image: e.mainImage(rt), Tolerations: ds.Spec.Tolerations, Prometheus: !rt.Spec.DisablePrometheus,
		Config: map[string]map[string]string{
			"alluxio-site.properties": escaped(base),
			"master.properties":       escaped(engines.Merge(base, rt.Spec.Master.Properties, rt.Spec.JobMaster.Properties)),
			"worker.properties":       escaped(engines.Merge(base, rt.Spec.Worker.Properties, rt.Spec.JobWorker.Properties)),
			"fuse.properties":         escaped(engines.Merge(base, fuseProps, rt.Spec.Fuse.Properties)),
		},
		UFSMounts: u.nested, HadoopConfig: hadoop,
	}
	if rt.Spec.APIGateway.Enabled {
		r.Config["proxy.properties"] = escaped(engines.Merge(base, rt.Spec.APIGateway.Properties))
	}
	if r.Tolerations == nil {
		r.Tolerations = []corev1.Toleration{}
	}
	if r.UFSMounts == nil {
		r.UFSMounts = []nestedMount{}
	}
	r.FuseImage = fuseImage(rt, r.Image)
	if ds.Spec.NodeAffinity != nil {
		r.NodeAffinity = ds.Spec.NodeAffinity.Required
	}
	r.Master = masterOf(rt, replicas, u, ports, rs)
	r.Master.APIGateway = proxyOf(rt, ports["apiGateway"])
	r.Worker = workerOf(rt, t, u, ports)
	r.Fuse = fuseOf(ds, rt, fuseArgs)
	r.MountsDigest = engines.MountsDigest(ds)
	r.MountJob = mountJobOf(ds, rt, u, r.MountsDigest, r.Image)
	if err := userVolumes(rt, r); err != nil {
		return nil, err
	}
	return r, nil
}

// checkUserProperties rejects property names that cannot be written.
func checkUserProperties(rt *datav1alpha1.AlluxioRuntime) error {
	for _, p := range []struct {
		field string
		props map[string]string
	}{
		{"spec.properties", rt.Spec.Properties}, {"spec.master.properties", rt.Spec.Master.Properties},
		{"spec.jobMaster.properties", rt.Spec.JobMaster.Properties}, {"spec.worker.properties", rt.Spec.Worker.Properties},
		{"spec.jobWorker.properties", rt.Spec.JobWorker.Properties}, {"spec.fuse.properties", rt.Spec.Fuse.Properties},
		{"spec.apiGateway.properties", rt.Spec.APIGateway.Properties},
	} {
		if err := checkKeys(p.field, p.props); err != nil {
			return err
		}
	}
	return nil
}

// checkImages refuses images, tags and pull policies no container could
// take as they are.
func checkImages(rt *datav1alpha1.AlluxioRuntime) error {
	f := rt.Spec.Fuse
	if err := engines.CheckVersion("spec.alluxioVersion", rt.Spec.AlluxioVersion); err != nil {
		return err
	}
	return engines.CheckVersion("spec.fuse", datav1alpha1.VersionSpec{Image: f.Image, ImageTag: f.ImageTag, ImagePullPolicy: f.ImagePullPolicy})
}

// datasetID is the fluid.io/dataset label value, "<ns>-<name>", or the
// dataset's UID when that is longer than a label value may be.
func datasetID(ds *datav1alpha1.Dataset) string {
	id := datav1alpha1.KeyOf(ds).DatasetID()
	if len(id) > 63 && ds.UID != "" {
		return string(ds.UID)
	}
	return id
}

// placement is the Dataset's placement; unset means Exclusive.
func placement(ds *datav1alpha1.Dataset) string {
	if ds.Spec.Placement == "" {
		return string(datav1alpha1.ExclusiveMode)
	}
	return string(ds.Spec.Placement)
}
