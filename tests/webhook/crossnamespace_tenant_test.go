package webhook_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/webhook"
)

// TestCrossNamespaceSidecarHasNoneOfTheProducersFields (reliability audit
// N7, the audit's recipe): namespace B's JuiceFSRuntime sets spec.fuse.env
// PATH, an nfs volume of B's host and its volumeMount, which B's policy
// data admits for B's own FUSE. Namespace A may use B's dataset
// (mutating.crossNamespace.allow). A's serverless Pod gets the sidecar of
// the record the controller writes for B's runtime
// (cacheruntime.PlatformFuseTemplate), which runs none of B's env,
// volumes or mounts.
func TestCrossNamespaceSidecarHasNoneOfTheProducersFields(t *testing.T) {
	consumer, producer := env.Namespace(t), env.Namespace(t)
	seedDataset(t, producer, "raw", datav1alpha1.BoundDatasetPhase)
	cm := crossNamespaceClaim(t, consumer, producer)
	bundle := crossNamespaceBundle(consumer, producer, "validating:\n  guards:\n    "+producer+
		":\n      privilegedFields: [spec.fuse.volumeMounts, spec.fuse.env]\n      envNames: [PATH]\n")
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), cm); err != nil {
			return err
		}
		cm.Data["cross.yaml"] = bundle
		return env.Client.Update(ctxT(t), cm)
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, policyLoad, "B's guards load", func() bool {
		return env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), cm) == nil && cm.Data["cross.yaml"] == bundle && annotation(t, cm) == "ok"
	})

	rt := &datav1alpha1.JuiceFSRuntime{}
	var lastErr error
	waitFor(t, 10*time.Second, "B's runtime with PATH, an nfs volume and its mount is admitted by B's guards", func() bool {
		lastErr = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: "raw"}, rt); err != nil {
				return err
			}
			rt.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.tenant-b.example.com", Path: "/t"}}}}
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "t", MountPath: "/opt/t"}}
			rt.Spec.Fuse.Env = []corev1.EnvVar{{Name: "PATH", Value: "/opt/t:/usr/bin:/bin"}}
			return env.Client.Update(ctxT(t), rt)
		})
		if lastErr != nil {
			t.Logf("B's runtime: %v", lastErr)
		}
		return lastErr == nil
	})
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: "raw"}, ds); err != nil {
		t.Fatal(err)
	}
	// The seeded Dataset's mount is no JuiceFS one; the record is rendered
	// as for B's Dataset on JuiceFS.
	ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "juicefs:///raw", Name: "raw", EncryptOptions: []datav1alpha1.EncryptOption{{Name: "metaurl",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "raw-meta", Key: "metaurl"}}}}}}
	if _, err := (juicefs.Engine{}).Values(ds, rt); err != nil {
		t.Fatalf("the JuiceFS engine refuses B's runtime: %v", err)
	}
	tmpl, ok, err := cacheruntime.PlatformFuseTemplate(ctxT(t), juicefs.Engine{}, ds, rt)
	if err != nil || !ok {
		t.Fatalf("the controller's record of B's runtime: found %v, %v", ok, err)
	}
	record := datav1alpha1.FuseRecord(webhook.DefaultNamespace, rt, tmpl)
	if err := env.Client.Create(ctxT(t), record); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), record) })
	waitForCache()

	pod := datasetPod("app", map[string]string{"serverless.fluid.io/inject": "true"}, "raw")
	pod.Namespace = consumer
	var sidecar *corev1.Container
	waitFor(t, 5*time.Second, "A's serverless Pod gets a FUSE sidecar", func() bool {
		p := pod.DeepCopy()
		if err := env.Client.Create(ctxT(t), p, client.DryRunAll); err != nil {
			t.Logf("A's Pod: %v", err)
			return false
		}
		for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range cs {
				if strings.HasPrefix(cs[i].Name, "fluid-fuse-") {
					sidecar, pod = &cs[i], p
					return true
				}
			}
		}
		return false
	})
	for _, e := range sidecar.Env {
		if e.Name == "PATH" {
			t.Errorf("A's sidecar sets B's env %s=%s", e.Name, e.Value)
		}
	}
	for _, m := range sidecar.VolumeMounts {
		if m.MountPath == "/opt/t" {
			t.Errorf("A's sidecar mounts B's volume %q at %s", m.Name, m.MountPath)
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.NFS != nil {
			t.Errorf("A's Pod got B's nfs volume %q (%s:%s)", v.Name, v.NFS.Server, v.NFS.Path)
		}
	}
	raw, err := json.Marshal(pod.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "tenant-b.example.com") || strings.Contains(string(raw), "/opt/t") {
		t.Errorf("A's Pod holds a value of B's runtime: %s", raw)
	}
}
