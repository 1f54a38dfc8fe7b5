package mutating_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// mapReader serves Get from a map without copying, as the webhook's cache
// does with deep copies disabled; it isolates the pipeline's own cost.
type mapReader map[string]client.Object

func (m mapReader) key(obj client.Object, k client.ObjectKey) string {
	return fmt.Sprintf("%T/%s/%s", obj, k.Namespace, k.Name)
}

func (m mapReader) Get(_ context.Context, k client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	src, ok := m[m.key(obj, k)]
	if !ok {
		return errNotFound(obj, k)
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(src).Elem())
	return nil
}

func (m mapReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return fmt.Errorf("not supported")
}

func benchHandler(b *testing.B) (*mutating.Handler, []byte) {
	b.Helper()
	dir := filepath.Join("..", "..", "policies", "testdata", "mutating", "serverful-affinity")
	r := mapReader{}
	for _, o := range objects(b) {
		r[r.key(o, client.ObjectKeyFromObject(o))] = o
	}
	bundle, err := policy.DefaultBundle()
	if err != nil {
		b.Fatal(err)
	}
	engine := policy.NewEngine(policies.MutatingQuery)
	if err := engine.Load(context.Background(), bundle); err != nil {
		b.Fatal(err)
	}
	pod, err := os.ReadFile(filepath.Join(dir, "pod.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := decodeYAMLPod(pod)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(p)
	return &mutating.Handler{Pipeline: &mutating.Pipeline{Engine: engine, Gatherer: &snapshot.Gatherer{Reader: r}, Mutators: mutating.DefaultMutators(), NativeSidecars: true}}, raw
}

// BenchmarkHandlerInProcess measures the handler with objects served from
// memory: the pipeline's own cost, without caches or an API server, with
// every request evaluating the policies (uncached) and with the decision
// cache (cached; the same Pod every time).
func BenchmarkHandlerInProcess(b *testing.B) {
	b.Run("uncached", func(b *testing.B) { benchHandle(b, 0) })
	b.Run("cached", func(b *testing.B) { benchHandle(b, 1024) })
}

func benchHandle(b *testing.B, memo int) {
	h, raw := benchHandler(b)
	h.Pipeline.Memo = mutating.NewMemo(memo, 64<<20)
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "b", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Operation: admissionv1.Create,
		Namespace: "team-a", Object: runtime.RawExtension{Raw: raw},
	}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if resp := h.Handle(ctx, req); !resp.Allowed || len(resp.Patches) == 0 {
			b.Fatalf("%+v", resp.Result)
		}
	}
}

// BenchmarkPolicyEval measures one evaluation of the default mutating
// policies alone (no gathering, conversion or mutation) on the inputs of
// the serverful-affinity and sidecar-native fixture cases: the part of an
// uncached admission that Rego costs. "general" is the query every class
// of inputs starts with, "specialised" the query specialised for the
// input's class, which the webhook uses once it is built; "opa" evaluates
// with OPA's evaluator, "quick" with the query compiled to closures
// (webhook/internal/quickeval), as the webhook does.
func BenchmarkPolicyEval(b *testing.B) {
	ctx := context.Background()
	bundle, err := policy.DefaultBundle()
	if err != nil {
		b.Fatal(err)
	}
	cases, err := fixture.Load(policies.FS, "testdata")
	if err != nil {
		b.Fatal(err)
	}
	type engine struct {
		name   string
		engine *policy.Engine
	}
	var engines []engine
	for _, spec := range []string{"general", "specialised"} {
		for _, how := range []string{"opa", "quick"} {
			e := policy.NewEngine(policies.MutatingQuery)
			if spec == "specialised" {
				e.Specialising(true)
			}
			if how == "opa" {
				e.Quick(policy.QuickOff)
			}
			if err := e.Load(ctx, bundle); err != nil {
				b.Fatal(err)
			}
			engines = append(engines, engine{spec + "/" + how, e})
		}
	}
	for _, name := range []string{"serverful-affinity", "sidecar-native"} {
		i := slices.IndexFunc(cases, func(c fixture.Case) bool { return filepath.Base(c.Name) == name })
		if i < 0 {
			b.Fatalf("no fixture case %s", name)
		}
		c := cases[i]
		p, err := fixture.NewPipeline(ctx, bundle, c.Objects, true)
		if err != nil {
			b.Fatal(err)
		}
		vols, err := p.Gatherer.DatasetVolumes(ctx, c.Pod.Namespace, c.Pod)
		if err != nil {
			b.Fatal(err)
		}
		ns, err := p.Gatherer.Namespace(ctx, c.Pod.Namespace)
		if err != nil {
			b.Fatal(err)
		}
		in := mutating.NewInput(mutating.Request{Pod: c.Pod, Operation: "CREATE", Namespace: c.Pod.Namespace}, vols, ns, true)
		input, err := regovalue.ToValue(&in)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range engines {
			active := e.engine.Active()
			b.Run(name+"/"+e.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := active.Eval(ctx, policies.MutatingQuery, input); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
