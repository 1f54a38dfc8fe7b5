package cachetrim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// replica is a Pod of a ReplicaSet as the API server serves it: every
// string and map its own, as decoding makes them.
func replica(name string, labels map[string]string) *corev1.Pod {
	own := map[string]string{}
	for k, v := range labels {
		own[strings.Clone(k)] = strings.Clone(v)
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: strings.Clone("team"), Labels: own,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: strings.Clone("apps/v1"), Kind: "ReplicaSet", Name: strings.Clone("app-5d8f7c9b6"),
				UID: "0f5c2a3e-7d1b-4c8e-9a6f-2b3c4d5e6f70", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: corev1.PodSpec{SchedulerName: corev1.DefaultSchedulerName, Containers: []corev1.Container{{Name: "app", Image: "app:1", TerminationMessagePolicy: corev1.TerminationMessageReadFile}}},
	}
}

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestReplicasShareLabelsOwnersAndNamespace: two Pods of one ReplicaSet
// are kept with one label map, one owner slice and one namespace string;
// a Pod with other labels, or with labels that differ only in where a
// key ends, gets its own map, and every kept Pod reads as its input did.
func TestReplicasShareLabelsOwnersAndNamespace(t *testing.T) {
	labels := map[string]string{"app": "web", "pod-template-hash": "5d8f7c9b6"}
	a, b := Pod(replica("web-a", labels)), Pod(replica("web-b", labels))
	if !sameMap(a.Labels, b.Labels) || &a.OwnerReferences[0] != &b.OwnerReferences[0] || unsafe.StringData(a.Namespace) != unsafe.StringData(b.Namespace) {
		t.Fatalf("replicas do not share their labels, owners or namespace: %p %p, %p %p", a.Labels, b.Labels, &a.OwnerReferences[0], &b.OwnerReferences[0])
	}
	in := replica("web-c", labels)
	if got := Pod(in.DeepCopy()); !reflect.DeepEqual(got.ObjectMeta, podMeta(&in.ObjectMeta)) {
		t.Fatalf("an interned Pod reads differently:\n got %+v\nwant %+v", got.ObjectMeta, in.ObjectMeta)
	}
	other := Pod(replica("db-a", map[string]string{"app": "db", "pod-template-hash": "5d8f7c9b6"}))
	if sameMap(other.Labels, a.Labels) || other.Labels["app"] != "db" {
		t.Fatalf("a Pod with other labels shares the replicas' map: %v", other.Labels)
	}
	x, y := Pod(replica("x", map[string]string{"a": "b=c"})), Pod(replica("y", map[string]string{"a=b": "c"}))
	if sameMap(x.Labels, y.Labels) {
		t.Fatalf("labels %v and %v share a map", x.Labels, y.Labels)
	}
}

// TestTheInternTableIsBounded: labels larger than internMaxBytes are not
// kept by the table, and it never holds more than internEntries values of
// a kind, however many distinct ones tenants write.
func TestTheInternTableIsBounded(t *testing.T) {
	table := newInternTable()
	big := map[string]string{"blob": strings.Repeat("b", internMaxBytes)}
	p, q := replica("p", big), replica("q", big)
	table.pod(p)
	table.pod(q)
	if sameMap(p.Labels, q.Labels) || len(table.labels) != 0 {
		t.Fatalf("labels of %d bytes are interned (%d kept)", internMaxBytes+4, len(table.labels))
	}
	for i := range 3 * internEntries {
		p := replica("p", map[string]string{"app": fmt.Sprint(i)})
		p.OwnerReferences[0].UID = types.UID("uid-" + p.Labels["app"])
		p.Namespace = "ns-" + p.Labels["app"]
		table.pod(p)
		if len(table.labels) > internEntries || len(table.owners) > internEntries || len(table.names) > internEntries {
			t.Fatalf("after %d Pods the table holds %d label maps, %d owners, %d namespaces", i+1, len(table.labels), len(table.owners), len(table.names))
		}
	}
}

// TestASecondTransformKeepsTheFirst: client-go transforms the objects of
// a watch-list twice; a Pod already trimmed, a tenant's or Sluice's, is
// returned as it is, not copied again.
func TestASecondTransformKeepsTheFirst(t *testing.T) {
	for _, sluices := range []bool{false, true} {
		in := &corev1.Pod{}
		fill(reflect.ValueOf(in).Elem())
		if sluices {
			in.Labels[managedBy] = "sluice"
		}
		first, err := Transform(in)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Transform(first)
		if err != nil {
			t.Fatal(err)
		}
		if first == any(in) || second != first {
			t.Errorf("Sluice's Pod %v: the first transform returned its input (%v) or the second a copy (%v)", sluices, first == any(in), second != first)
		}
	}
}
