package jindo_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

func secretRef(name, key string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: name, Key: key}}
}

// sample is an OSS dataset with a shared encryptOption and one per mount,
// cached by two workers on two SSD directories with a quota list, Shared
// placement and three Raft masters.
func sample() (*datav1alpha1.Dataset, *datav1alpha1.JindoRuntime) {
	ds := &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a", UID: "5a0c4b7e-1d2f-4e6a-9b3c-8d7e6f5a4b3c"},
		Spec: datav1alpha1.DatasetSpec{
			Mounts: []datav1alpha1.Mount{
				{MountPoint: "oss://imagenet-bucket/train", Name: "train",
					Options:        map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou-internal.aliyuncs.com", "metaPolicy": "ONCE"},
					EncryptOptions: []datav1alpha1.EncryptOption{{Name: "fs.oss.accessKeySecret", ValueFrom: secretRef("oss-keys", "secret")}}},
				{MountPoint: "local:///mnt/labels", Name: "labels", ReadOnly: true},
			},
			SharedEncryptOptions: []datav1alpha1.EncryptOption{{Name: "fs.oss.accessKeyId", ValueFrom: secretRef("oss-keys", "id")}},
			Placement:            datav1alpha1.ShareMode,
			Tolerations:          []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			NodeAffinity: &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"nvme"}}}}}}},
		},
	}
	rt := &datav1alpha1.JindoRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"},
		Spec: datav1alpha1.JindoRuntimeSpec{
			Replicas: 2,
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{
				MediumType: datav1alpha1.SSD, Path: "/mnt/disk1,/mnt/disk2", QuotaList: "100Gi,50Gi", High: "0.9", Low: "0.7"}}},
			Master: datav1alpha1.JindoCompTemplateSpec{Replicas: 3, Properties: map[string]string{"namespace.filelet.cache.size": "200000"}},
			Worker: datav1alpha1.JindoCompTemplateSpec{
				Env:       map[string]string{"JINDO_LOG_LEVEL": "info"},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}},
			},
			Fuse: datav1alpha1.JindoFuseSpec{
				NodeSelector: map[string]string{"gpu": "true"},
				Properties:   map[string]string{"fs.jindocache.read.buffer.size": "4194304"},
				PodMetadata:  datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}},
			},
			PodMetadata: datav1alpha1.PodMetadata{Annotations: map[string]string{"example.com/owner": "vision"}},
		},
	}
	return ds, rt
}

func render(t *testing.T, ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) map[string]string {
	t.Helper()
	_, out := enginetest.Render(t, jindo.Engine{}, nil, ds, rt)
	return out
}

// TestChartGolden renders the Jindo chart with the Helm SDK for the sample
// and compares it with testdata/golden (go test -update rewrites them after
// a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, rt := sample()
	enginetest.Golden(t, render(t, ds, rt), []string{"templates/configmap.yaml", "templates/fuse-daemonset.yaml",
		"templates/master-service.yaml", "templates/master-statefulset.yaml", "templates/worker-statefulset.yaml"})
}
