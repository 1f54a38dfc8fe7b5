package e2eops_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// thinDataLoadCompletes: a DataLoad of a Thin Dataset (a ThinRuntime on a
// profile shaped like config/samples/thin-rclone's) is admitted without a
// warning, the Thin engine renders its Job (sluice warmup in the
// controller's --sluice-image over the Dataset's PVC, where the runtime's
// FUSE may run), kwok completes its pod and the DataLoad goes Complete,
// releasing the Dataset.
func thinDataLoadCompletes(t *testing.T) {
	t.Parallel()
	s := newThinScenario(t, 3*time.Minute)
	load := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "warm"}, Spec: datav1alpha1.DataLoadSpec{
		Dataset: datav1alpha1.TargetDataset{Name: datasetName, Namespace: s.ns}, LoadMetadata: true,
		Target:  []datav1alpha1.TargetPath{{Path: "/january"}, {Path: "/february"}},
		Options: map[string]string{"threads": "4", "timeout": "1h"},
	}}
	c, warned := warnedClient(t)
	if err := c.Create(s.ctx, load); err != nil {
		t.Fatalf("creating the DataLoad: %v", err)
	}
	if w := warned.String(); w != "" {
		t.Fatalf("the DataLoad of a Thin Dataset was admitted with warnings: %s", w)
	}
	s.waitPhase(load, datav1alpha1.PhaseComplete)
	s.waitFor("the Dataset to be released", func() (bool, error) { return holders(s.dataset()) == "", nil })

	pod := s.succeededPod(operation.ReleaseName(datav1alpha1.DataLoadKind, load.Name))
	spec := pod.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("the load pod's containers: %+v", spec.Containers)
	}
	ctr := spec.Containers[0]
	want := []string{"sluice", "warmup", "--root=/sluice/dataset", "--threads=4", "--timeout=1h", "--metadata", "--", "/january", "/february"}
	if !slices.Equal(ctr.Command, want) || ctr.Image != sluiceImage {
		t.Errorf("the load pod runs %q in %s, want %q in the controller's --sluice-image %s", ctr.Command, ctr.Image, want, sluiceImage)
	}
	if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == datasetName && v.PersistentVolumeClaim.ReadOnly
	}) {
		t.Errorf("the load pod's volumes %+v lack the Dataset's claim %s, read-only", spec.Volumes, datasetName)
	}
	if got := spec.NodeSelector[fuseZone]; got != "zone-a" {
		t.Errorf("the load pod's nodeSelector %v lacks the runtime's FUSE nodeSelector %s=zone-a", spec.NodeSelector, fuseZone)
	}
	t.Logf("the load pod ran on %s: %q", spec.NodeName, ctr.Command)
}

// fuseZone is the node label the Thin runtime's FUSE is restricted by
// (every simulated node is in zone-a).
const fuseZone = "topology.kubernetes.io/zone"

// newThinScenario creates a namespace with the rclone sample's objects,
// adapted (a profile of the namespace's name, the endpoint of a store that
// is never reached: kwok runs no container), and waits until the Dataset
// is Bound.
func newThinScenario(t *testing.T, timeout time.Duration) *scenario {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "thin-"}}
	if err := cluster.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	s := &scenario{t: t, ctx: ctx, ns: ns.Name}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("namespace %s:\n%s", s.ns, s.dump())
			t.Logf("controller and webhook log lines naming %s:\n%s", s.ns, logLines(s.ns, 60))
		}
	})
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "rclone-" + s.ns}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "fuse.rclone",
		Fuse: datav1alpha1.ThinFuseSpec{
			VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/sluice-rclone", ImageTag: "1.76.0"},
			Command:     []string{"sluice", "rclone-mount"},
			Args:        []string{"--config=/etc/fluid/config/config.json", "--secret-root=/etc/fluid/secrets", "--", "--vfs-cache-mode=full", "--cache-dir=/var/cache/rclone", "--allow-other"},
		},
	}}
	t.Cleanup(func() { _ = cluster.Client.Delete(context.Background(), profile) })
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "photos-s3"}, StringData: map[string]string{"access-key": "a", "secret-key": "s"}}
	ref := func(key string) datav1alpha1.EncryptOptionSource {
		return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: secret.Name, Key: key}}
	}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: datasetName}, Spec: datav1alpha1.DatasetSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
		Mounts: []datav1alpha1.Mount{{MountPoint: "s3://photos/2024", Path: "/", Options: map[string]string{"provider": "Other", "endpoint": "http://minio.invalid:9000"},
			EncryptOptions: []datav1alpha1.EncryptOption{{Name: "access_key_id", ValueFrom: ref("access-key")}, {Name: "secret_access_key", ValueFrom: ref("secret-key")}}}},
	}}
	quota := resource.MustParse("10Gi")
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: datasetName}, Spec: datav1alpha1.ThinRuntimeSpec{
		ProfileName: profile.Name,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/var/cache/rclone", Quota: &quota}}},
		Fuse:        datav1alpha1.ThinFuseSpec{Options: map[string]string{"vfs-cache-max-size": "9G"}, NodeSelector: map[string]string{fuseZone: "zone-a"}},
	}}
	for _, obj := range []client.Object{profile, secret, ds, rt} {
		s.create(obj)
	}
	s.waitFor("the Thin Dataset to be Bound", func() (bool, error) {
		return s.dataset().Status.Phase == datav1alpha1.BoundDatasetPhase, nil
	})
	return s
}

// warnedClient is an administrator's client whose requests' warnings are collected.
func warnedClient(t *testing.T) (client.Client, *testenv.Warnings) {
	return testenv.WarnedClient(t, cluster.Config, cluster.Scheme)
}
