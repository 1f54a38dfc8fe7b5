package cachetrim

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// TestATenantPodKeepsWhatIsReadOfIt: of a Pod that is not Sluice's, the
// controller reads which Datasets it uses (volume.UsedNames, by its PVC
// volumes and the datasets-in-use annotation), whether it has ended and
// its identity, labels, owners and deletion; a filled Pod keeps all of
// them and nothing of its containers.
func TestATenantPodKeepsWhatIsReadOfIt(t *testing.T) {
	in := &corev1.Pod{}
	fill(reflect.ValueOf(in).Elem())
	in.Annotations[datav1alpha1.AnnotationDatasetsInUse] = "a, other/b, c"
	in.Spec.Volumes = append(in.Spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "d"}}})
	if Sluices(in) {
		t.Fatal("a Pod labelled by its author only is taken for Sluice's")
	}
	out := Pod(in.DeepCopy())
	if got, want := volume.UsedNames(out), volume.UsedNames(in); !slices.Equal(got, want) || len(want) < 3 {
		t.Fatalf("the trimmed tenant Pod uses %v, the Pod %v", got, want)
	}
	if !equality.Semantic.DeepEqual(out.ObjectMeta, podMeta(&in.ObjectMeta)) || out.Status.Phase != in.Status.Phase {
		t.Fatalf("the trimmed tenant Pod lost its identity, labels, owners, deletion or phase: %+v", out)
	}
	if out.Spec.Containers != nil || out.Spec.InitContainers != nil || out.Status.ContainerStatuses != nil || out.Status.Conditions != nil ||
		out.Spec.NodeName != "" || len(out.Spec.Volumes) != 2 {
		t.Fatalf("the trimmed tenant Pod keeps what is read only of Sluice's Pods: %+v", out.Spec)
	}
	for _, l := range []string{managedBy + "=sluice", datav1alpha1.LabelInjectionDone + "=true"} {
		k, v, _ := strings.Cut(l, "=")
		p := in.DeepCopy()
		p.Labels[k] = v
		if !Sluices(p) || Pod(p).Spec.Containers == nil {
			t.Errorf("a Pod labelled %s is not kept as Sluice's", l)
		}
	}
}

// TestEveryRenderedPodIsSluices: every pod template in the goldens of
// every engine and workload (each testdata/golden under engines/) is labelled
// app.kubernetes.io/managed-by=sluice, so that the cache keeps its Pods
// whole (Sluices). A chart that renders a pod without it fails here.
func TestEveryRenderedPodIsSluices(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../../engines", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "golden" && filepath.Base(filepath.Dir(path)) == "testdata" {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 6 {
		t.Fatalf("found %d engine golden directories; the test is looking in the wrong place", len(files))
	}
	templates := 0
	for _, dir := range files {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, doc := range bytes.Split(b, []byte("\n---")) {
				obj := map[string]any{}
				if yaml.Unmarshal(doc, &obj) != nil || obj["kind"] == nil {
					continue
				}
				for _, at := range [][]string{{"spec", "template", "metadata", "labels"}, {"spec", "jobTemplate", "spec", "template", "metadata", "labels"}} {
					if _, ok, _ := unstructured.NestedFieldNoCopy(obj, at[:len(at)-2]...); !ok {
						continue
					}
					templates++
					labels, _, _ := unstructured.NestedStringMap(obj, at...)
					if labels[managedBy] != "sluice" {
						t.Errorf("%s: the pod template of %v %v is not labelled %s=sluice (labels %v)", path, obj["kind"],
							obj["metadata"].(map[string]any)["name"], managedBy, labels)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if templates < 20 {
		t.Fatalf("found only %d pod templates in the goldens", templates)
	}
	t.Logf("%d pod templates checked", templates)
}
