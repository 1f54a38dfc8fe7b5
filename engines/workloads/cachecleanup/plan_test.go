package cachecleanup_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

// TestPlanNamesOnlyTheRuntimesPodsAndDirectories: Plan takes the nodes
// of the pods the runtime's release controls and, of their hostPath
// volumes, only the runtime's own directories.
func TestPlanNamesOnlyTheRuntimesPodsAndDirectories(t *testing.T) {
	own := "/mnt/cache/.sluice/team-a/imagenet"
	pod := func(name, node, ownerKind, owner string, paths ...string) corev1.Pod {
		p := workerWith("team-a", "imagenet", paths...)
		p.Name, p.Spec.NodeName = name, node
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: owner, Controller: ptr.To(true)}}
		return p
	}
	otherNS := pod("imagenet-worker-9", "node-x", "StatefulSet", "imagenet-worker", own)
	otherNS.Namespace = "team-b"
	relabelled := pod("imagenet-worker-8", "node-y", "StatefulSet", "imagenet-worker", own)
	relabelled.Labels = map[string]string{"app.kubernetes.io/instance": "imagenet"}
	notController := pod("imagenet-worker-7", "node-z", "StatefulSet", "imagenet-worker", own)
	notController.OwnerReferences[0].Controller = nil
	pods := []corev1.Pod{
		pod("imagenet-worker-1", "node-b", "StatefulSet", "imagenet-worker", own, "/dev/shm/.sluice/team-a/imagenet"),
		pod("imagenet-worker-0", "node-a", "StatefulSet", "imagenet-worker", own, "/etc", "/var/lib/kubelet"),
		pod("imagenet-fuse-abcde", "node-a", "DaemonSet", "imagenet-fuse", own, "/runtime-mnt/juicefs/team-a/imagenet"),
		pod("imagenet-master-0", "node-m", "StatefulSet", "imagenet-master"),               // no hostPath cache
		pod("imagenet-worker-2", "", "StatefulSet", "imagenet-worker", own),                // not scheduled
		pod("other-worker-0", "node-o", "StatefulSet", "other-worker", own),                // another release's owner
		pod("imagenet-loader-x", "node-l", "Job", "imagenet-loader", own),                  // a data operation's pod
		pod("imagenet-workers-0", "node-w", "StatefulSet", "imagenet-loader-workers", own), // a parallel operation's worker
		otherNS, relabelled, notController,
	}
	got := fmt.Sprint(cachecleanup.Plan(pods, "team-a", "imagenet"))
	want := fmt.Sprint([]cachecleanup.Node{
		{Name: "node-a", Dirs: []string{own}, Image: "engine:v1"},
		{Name: "node-b", Dirs: []string{"/dev/shm/.sluice/team-a/imagenet", own}, Image: "engine:v1"},
	})
	if got != want {
		t.Errorf("Plan:\n got %s\nwant %s", got, want)
	}
}

func TestPolicyBounds(t *testing.T) {
	for _, tc := range []struct {
		grace, retries   *int32
		wantPolicy       cachecleanup.Policy
		wantJobDeadlineS int64
	}{
		{nil, nil, cachecleanup.Policy{GracePeriodSeconds: 60, MaxRetryAttempts: 3}, 60 + 10 + 60 + 20 + 60 + 40 + 60},
		{ptr.To[int32](5), ptr.To[int32](0), cachecleanup.Policy{GracePeriodSeconds: 5, MaxRetryAttempts: 0}, 5},
		{ptr.To[int32](0), ptr.To[int32](-2), cachecleanup.Policy{GracePeriodSeconds: 1, MaxRetryAttempts: 0}, 1},
		{ptr.To[int32](1), ptr.To[int32](8), cachecleanup.Policy{GracePeriodSeconds: 1, MaxRetryAttempts: 8}, 9 + 10 + 20 + 40 + 80 + 160 + 320 + 360 + 360},
		{ptr.To[int32](1 << 30), ptr.To[int32](1 << 30), cachecleanup.Policy{GracePeriodSeconds: 1 << 30, MaxRetryAttempts: 1 << 30}, 1 << 32},
	} {
		p := cachecleanup.PolicyOf(datav1alpha1.CleanCachePolicy{GracePeriodSeconds: tc.grace, MaxRetryAttempts: tc.retries})
		if p != tc.wantPolicy || p.JobDeadlineSeconds() != tc.wantJobDeadlineS {
			t.Errorf("PolicyOf(%v, %v) = %+v (Job deadline %ds), want %+v (%ds)", ptr.Deref(tc.grace, -1), ptr.Deref(tc.retries, -1),
				p, p.JobDeadlineSeconds(), tc.wantPolicy, tc.wantJobDeadlineS)
		}
		if p.GiveUpAfter() <= 0 {
			t.Errorf("GiveUpAfter of %+v is %s", p, p.GiveUpAfter())
		}
	}
}
