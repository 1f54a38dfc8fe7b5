package validating_test

import (
	"context"
	"encoding/json"
	"path"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/validating"
)

// fuzzKinds are the kinds the validating webhook judges, in the order a
// fuzz input's kind byte picks them.
var fuzzKinds = []string{
	"Dataset", "AlluxioRuntime", "JuiceFSRuntime", "JindoRuntime", "ThinRuntime", "ThinRuntimeProfile",
	"DataLoad", "DataMigrate", "DataBackup", "DataProcess",
}

// FuzzValidatingAdmission sends arbitrary objects of every kind the
// validating webhook judges through its handler, with the default policies
// over the cluster of the fixture cases, as a dry run. Whatever the
// object, the webhook answers: it allows, or denies naming a rule, or
// refuses JSON that is not the kind as a bad request; it never fails
// internally (a panic, or a policy that errors instead of deciding: the
// API server would then refuse every such object with an internal error,
// or, were the webhook's failure policy Ignore, admit it unjudged). The
// same request gets the same answer twice, and a dry run never claims a
// Dataset.
func FuzzValidatingAdmission(f *testing.F) {
	objects, seeds := validatingCases(f)
	for _, s := range seeds {
		f.Add(s.kind, s.object, s.old)
	}
	f.Add(uint8(0), []byte(`{"spec":{"mounts":[{"mountPoint":"dataset://other/d"}]}}`), []byte(nil))
	f.Add(uint8(2), []byte(`{"spec":{"tieredstore":{"levels":[{"mediumtype":"SSD","quota":"-1","path":"/a:/a"}]}}}`), []byte(nil))
	f.Add(uint8(6), []byte(`{"spec":{"dataset":{"name":"imagenet"},"policy":"Cron","schedule":"* * *"}}`), []byte(nil))

	b, err := policy.DefaultBundle()
	if err != nil {
		f.Fatal(err)
	}
	p, err := fixture.NewValidatingPipeline(context.Background(), b, objects)
	if err != nil {
		f.Fatal(err)
	}
	h := &validating.Handler{Pipeline: p, Scheme: sluicescheme.New()}
	held := func() map[string]string {
		out := map[string]string{}
		for _, o := range objects {
			if ds, ok := o.(*datav1alpha1.Dataset); ok {
				got := &datav1alpha1.Dataset{}
				if err := p.Claimer.Client.Get(context.Background(), client.ObjectKeyFromObject(ds), got); err != nil {
					f.Fatal(err)
				}
				ref, _ := json.Marshal(got.Status.OperationRef)
				out[ds.Namespace+"/"+ds.Name] = string(ref)
			}
		}
		return out
	}
	before := held()

	f.Fuzz(func(t *testing.T, kind uint8, object, old []byte) {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID:       "fuzz",
			Kind:      metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: fuzzKinds[int(kind)%len(fuzzKinds)]},
			Operation: admissionv1.Create, Namespace: namespaceOf(object), Name: "imagenet",
			Object: runtime.RawExtension{Raw: object}, DryRun: ptr.To(true),
		}}
		if len(old) > 0 {
			req.Operation, req.OldObject = admissionv1.Update, runtime.RawExtension{Raw: old}
		}
		resp := h.Handle(context.Background(), req)
		if r := resp.Result; !resp.Allowed && r != nil && r.Code >= 500 {
			t.Fatalf("%s %s failed internally (%d): %s\nobject: %s\nold: %s", req.Operation, req.Kind.Kind, r.Code, r.Message, object, old)
		}
		if !resp.Allowed && resp.Result != nil && resp.Result.Code == 403 && !strings.Contains(resp.Result.Message, "(rule ") {
			t.Fatalf("a denial names no rule: %s", resp.Result.Message)
		}
		again := h.Handle(context.Background(), req)
		if again.Allowed != resp.Allowed || !reflect.DeepEqual(again.Result, resp.Result) || !reflect.DeepEqual(again.Warnings, resp.Warnings) {
			t.Fatalf("the same request was answered twice differently:\n%+v\n%+v", resp, again)
		}
		if after := held(); !reflect.DeepEqual(after, before) {
			t.Fatalf("a dry run changed the claims: %v, was %v", after, before)
		}
	})
}

type validatingSeed struct {
	kind        uint8
	object, old []byte
}

// validatingCases returns the cluster objects of every validating fixture
// case (deduplicated by kind, namespace and name; the first one wins) and
// each case's object and old object as seeds.
func validatingCases(f *testing.F) ([]client.Object, []validatingSeed) {
	cases, err := fixture.Load(policies.FS, "testdata/validating")
	if err != nil {
		f.Fatal(err)
	}
	if len(cases) == 0 {
		f.Fatal("no validating fixture cases under policies/testdata/validating")
	}
	seen := map[string]bool{}
	var objects []client.Object
	var seeds []validatingSeed
	for _, c := range cases {
		for _, o := range c.Objects {
			key := reflect.TypeOf(o).String() + "/" + path.Join(o.GetNamespace(), o.GetName())
			if !seen[key] {
				seen[key] = true
				objects = append(objects, o)
			}
		}
		s := validatingSeed{object: marshal(f, c.Object)}
		kind := c.Object.GetObjectKind().GroupVersionKind().Kind
		for i, k := range fuzzKinds {
			if k == kind {
				s.kind = uint8(i)
			}
		}
		if c.Old != nil {
			s.old = marshal(f, c.Old)
		}
		seeds = append(seeds, s)
	}
	return objects, seeds
}

func marshal(f *testing.F, o client.Object) []byte {
	raw, err := json.Marshal(o)
	if err != nil {
		f.Fatal(err)
	}
	return raw
}

// namespaceOf is the namespace the API server would send with object: its
// metadata.namespace, or team-a (a namespace of the fixture cases) when it
// has none.
func namespaceOf(object []byte) string {
	var m struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if json.Unmarshal(object, &m) != nil || m.Metadata.Namespace == "" {
		return "team-a"
	}
	return m.Metadata.Namespace
}
