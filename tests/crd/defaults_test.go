package crd_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestDefaults applies minimal manifests (as users write them, without the
// empty objects a typed Go client would send) and checks the defaults the API
// server fills in.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		check    func(t *testing.T, key client.ObjectKey)
	}{
		// name, manifest, assertions on the stored object
		{"runtime level volumeType, replicas and clean-cache policy", `
apiVersion: data.fluid.io/v1alpha1
kind: JuiceFSRuntime
metadata: {name: demo}
spec:
  tieredstore:
    levels: [{mediumtype: MEM, path: /dev/shm, quota: 1Gi}]
  worker:
    ports: [{containerPort: 9567}]`, func(t *testing.T, key client.ObjectKey) {
			rt := &datav1alpha1.JuiceFSRuntime{}
			get(t, key, rt)
			if rt.Spec.TieredStore.Levels[0].VolumeType != datav1alpha1.VolumeTypeHostPath {
				t.Errorf("volumeType = %q, want hostPath", rt.Spec.TieredStore.Levels[0].VolumeType)
			}
			if rt.Spec.Replicas != 0 {
				t.Errorf("replicas = %d, want 0", rt.Spec.Replicas)
			}
			ccp := rt.Spec.Management.CleanCachePolicy
			if ccp.GracePeriodSeconds == nil || *ccp.GracePeriodSeconds != 60 || ccp.MaxRetryAttempts == nil || *ccp.MaxRetryAttempts != 3 {
				t.Errorf("cleanCachePolicy = %+v, want gracePeriodSeconds 60 and maxRetryAttempts 3", ccp)
			}
			if p := rt.Spec.Worker.Ports[0].Protocol; p != corev1.ProtocolTCP {
				t.Errorf("port protocol = %q, want TCP", p)
			}
		}},
		{"Jindo top-level cleanCachePolicy", `
apiVersion: data.fluid.io/v1alpha1
kind: JindoRuntime
metadata: {name: demo}
spec: {replicas: 1}`, func(t *testing.T, key client.ObjectKey) {
			rt := &datav1alpha1.JindoRuntime{}
			get(t, key, rt)
			if g := rt.Spec.CleanCachePolicy.GracePeriodSeconds; g == nil || *g != 60 {
				t.Errorf("cleanCachePolicy.gracePeriodSeconds = %v, want 60", g)
			}
		}},
		{"DataLoad policy", `
apiVersion: data.fluid.io/v1alpha1
kind: DataLoad
metadata: {name: demo}
spec: {dataset: {name: demo}}`, func(t *testing.T, key client.ObjectKey) {
			dl := &datav1alpha1.DataLoad{}
			get(t, key, dl)
			if dl.Spec.Policy != datav1alpha1.Once {
				t.Errorf("policy = %q, want Once", dl.Spec.Policy)
			}
		}},
		{"DataMigrate policy and parallelism", `
apiVersion: data.fluid.io/v1alpha1
kind: DataMigrate
metadata: {name: demo}
spec:
  from: {externalStorage: {uri: "s3://b/p"}}
  to: {dataset: {name: demo, namespace: default}}`, func(t *testing.T, key client.ObjectKey) {
			dm := &datav1alpha1.DataMigrate{}
			get(t, key, dm)
			if dm.Spec.Policy != datav1alpha1.Once || dm.Spec.Parallelism != 1 {
				t.Errorf("policy = %q, parallelism = %d; want Once and 1", dm.Spec.Policy, dm.Spec.Parallelism)
			}
		}},
		{"DataProcess policy and script restartPolicy", `
apiVersion: data.fluid.io/v1alpha1
kind: DataProcess
metadata: {name: demo}
spec:
  dataset: {name: demo, mountPath: /data}
  processor: {script: {source: "ls"}}`, func(t *testing.T, key client.ObjectKey) {
			dp := &datav1alpha1.DataProcess{}
			get(t, key, dp)
			if dp.Spec.Policy != datav1alpha1.Once || dp.Spec.Processor.Script.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("policy = %q, restartPolicy = %q; want Once and Never", dp.Spec.Policy, dp.Spec.Processor.Script.RestartPolicy)
			}
		}},
		{"ThinRuntimeProfile nodePublishSecretPolicy", `
apiVersion: data.fluid.io/v1alpha1
kind: ThinRuntimeProfile
metadata: {name: demo}
spec: {fileSystemType: nfs}`, func(t *testing.T, key client.ObjectKey) {
			p := &datav1alpha1.ThinRuntimeProfile{}
			get(t, key, p)
			if p.Spec.NodePublishSecretPolicy != datav1alpha1.MountNodePublishSecretIfExists {
				t.Errorf("nodePublishSecretPolicy = %q", p.Spec.NodePublishSecretPolicy)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			if err := yamlUnmarshal([]byte(tt.manifest), &u.Object); err != nil {
				t.Fatal(err)
			}
			if clusterScoped(u.GetKind()) {
				u.SetName(env.Namespace(t)) // a unique name
			} else {
				u.SetNamespace(env.Namespace(t))
			}
			if err := env.Client.Create(ctxT(t), u); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctxT(t), u) })
			tt.check(t, client.ObjectKeyFromObject(u))
		})
	}
}

func get(t *testing.T, key client.ObjectKey, obj client.Object) {
	t.Helper()
	if err := env.Client.Get(ctxT(t), key, obj); err != nil {
		t.Fatal(err)
	}
}

func yamlUnmarshal(data []byte, v any) error { return yaml.Unmarshal(data, v) }
