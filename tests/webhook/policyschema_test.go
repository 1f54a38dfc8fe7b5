package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestPolicyDataThatDoesNotFitTheSchemaIsRejected (issue 33, point 4)
// through the real API server: a policy ConfigMap limits a namespace's
// mount schemes to pvc; an update that would allow s3 but misspells a key
// (or gives a value of the wrong type) is rejected, naming the ConfigMap,
// the key and its path in the status annotation and a PolicyRejected
// Event, and the last good bundle keeps serving: s3 stays denied.
func TestPolicyDataThatDoesNotFitTheSchemaIsRejected(t *testing.T) {
	ns := env.Namespace(t)
	s3Denied := func() bool {
		ds := testobj.Dataset("probe", ns, testobj.WithMounts("s3://bucket/probe"))
		err := env.Client.Create(ctxT(t), ds, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "mount-scheme")
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "schema-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"schemes.yaml": "validating:\n  mountSchemes:\n    " + ns + ": [pvc]\n"},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the ConfigMap loads", func() bool { return annotation(t, cm) == "ok" })
	if !s3Denied() {
		t.Fatal("an s3 Dataset admitted where the policy allows pvc only")
	}

	for _, tc := range []struct {
		name, data string
		want       string // in the status and the Event
	}{
		{"an unknown key", "validating:\n  mountSchemes:\n    " + ns + ": [pvc, s3]\n  mountScheme: {}\n",
			"validating.mountScheme: unknown key (the keys here are budgets, fields, guards, mountSchemes, operations, references)"},
		{"a value of the wrong type", "validating:\n  mountSchemes:\n    " + ns + ": s3\n",
			`validating.mountSchemes["` + ns + `"]: got string, want array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), cm); err != nil {
				t.Fatal(err)
			}
			cm.Data["schemes.yaml"] = tc.data
			if err := env.Client.Update(ctxT(t), cm); err != nil {
				t.Fatal(err)
			}
			source := "(ConfigMap " + webhook.DefaultNamespace + "/" + cm.Name + " key schemes.yaml): does not fit the policy data schema"
			var status string
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("status: %s", status)
				}
			})
			waitFor(t, policyLoad, "the status names the file and the path", func() bool {
				status = annotation(t, cm)
				return strings.HasPrefix(status, "error: ") && strings.Contains(status, source) && strings.Contains(status, tc.want)
			})
			waitFor(t, policyLoad, "a PolicyRejected Event names the path", func() bool {
				return eventNoteContains(t, cm, "PolicyRejected", tc.want)
			})
			if !s3Denied() {
				t.Error("the rejected data took effect: the last good bundle must keep serving")
			}
		})
	}
}

// eventNoteContains reports whether an Event of reason on cm says want.
func eventNoteContains(t *testing.T, cm *corev1.ConfigMap, reason, want string) bool {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(ctxT(t), list, client.InNamespace(cm.Namespace)); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if e.Regarding.Name == cm.Name && e.Reason == reason && strings.Contains(e.Note, want) {
			return true
		}
	}
	return false
}
