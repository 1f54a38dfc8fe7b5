package crd_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestRefusedKinds applies every manifest of testdata/refused, each valid
// for Fluid's published schema (refusedCRDDir), as `kubectl create` and as
// `kubectl apply --server-side` would, and expects the API server itself
// (no webhook runs in this suite) to refuse it with the message naming the
// kind, and to store nothing. An object with no fields at all is refused
// too.
func TestRefusedKinds(t *testing.T) {
	files, err := filepath.Glob("testdata/refused/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	crds, err := filepath.Glob(filepath.Join(refusedCRDDir, "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in %s: %v", refusedCRDDir, err)
	}
	fluid := schemasOf(t, crds)
	kinds := map[string]bool{}
	for _, f := range files {
		for i, doc := range readDocs(t, f) {
			kinds[doc.GetKind()] = true
			t.Run(fmt.Sprintf("%s#%d/%s", filepath.Base(f), i, doc.GetName()), func(t *testing.T) {
				fluid.check(t, doc)
				expectRefused(t, doc)
			})
		}
	}
	for _, kind := range datav1alpha1.RefusedKinds() {
		if !kinds[kind] {
			t.Errorf("no manifest of %s in testdata/refused", kind)
		}
		t.Run(kind+"/empty", func(t *testing.T) {
			empty := &unstructured.Unstructured{}
			empty.SetAPIVersion(datav1alpha1.GroupVersion.String())
			empty.SetKind(kind)
			empty.SetName("empty")
			if kind == "CacheRuntimeClass" {
				empty.Object["fileSystemType"] = "demofs" // required by Fluid's schema
			}
			expectRefused(t, empty)
		})
	}
}

// expectRefused creates doc and applies it, expecting both refused with
// the kind's message, and checks that nothing was stored.
func expectRefused(t *testing.T, doc *unstructured.Unstructured) {
	t.Helper()
	ctx := ctxT(t)
	kind := doc.GetKind()
	obj := doc.DeepCopy()
	if clusterScoped(kind) {
		obj.SetName(obj.GetName() + "-" + utilrand.String(6))
	} else {
		obj.SetNamespace(env.Namespace(t))
	}
	checkRefusal(t, "create", kind, env.Client.Create(ctx, obj.DeepCopy()))
	checkRefusal(t, "server-side apply", kind,
		env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), client.FieldOwner("fluid-user"), client.ForceOwnership))
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); !apierrors.IsNotFound(err) {
		t.Errorf("a refused %s was stored (get: %v)", kind, err)
	}
}

// checkRefusal fails the test unless err is the refusal of kind.
func checkRefusal(t *testing.T, what, kind string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s of %s was admitted", what, kind)
	case !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), datav1alpha1.RefusedMessage(kind)):
		t.Errorf("%s of %s: want the refusal %q, got %v", what, kind, datav1alpha1.RefusedMessage(kind), err)
	}
}

// TestRefusedKindsAreServed: each refused kind is served as Fluid serves it,
// as kubectl finds it: by discovery, with Fluid's scope, short names and
// category (`kubectl get efc`, `kubectl get fluid`), and it lists.
func TestRefusedKindsAreServed(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := dc.ServerResourcesForGroupVersion(datav1alpha1.GroupVersion.String())
	if err != nil {
		t.Fatal(err)
	}
	groupResources, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groupResources), dc, nil)
	inCategory, _ := restmapper.NewDiscoveryCategoryExpander(dc).Expand("fluid")
	files := map[string]string{}
	refusedFiles, _ := filepath.Glob(filepath.Join(refusedCRDDir, "*.yaml"))
	for _, f := range refusedFiles {
		files[readCRD(t, f).Spec.Names.Kind] = f
	}
	for _, kind := range datav1alpha1.RefusedKinds() {
		t.Run(kind, func(t *testing.T) {
			if files[kind] == "" {
				t.Fatalf("no Fluid CRD of %s in %s", kind, refusedCRDDir)
			}
			fluid := readCRD(t, files[kind])
			i := slices.IndexFunc(resources.APIResources, func(r metav1.APIResource) bool { return r.Kind == kind })
			if i < 0 {
				t.Fatalf("%s is not served", kind)
			}
			served := resources.APIResources[i]
			if served.Name != fluid.Spec.Names.Plural || served.Namespaced != (fluid.Spec.Scope == apiextensionsv1.NamespaceScoped) {
				t.Errorf("served as %s (namespaced %v); Fluid serves %s, %s", served.Name, served.Namespaced, fluid.Spec.Names.Plural, fluid.Spec.Scope)
			}
			for _, short := range fluid.Spec.Names.ShortNames {
				gvr, err := mapper.ResourceFor(datav1alpha1.GroupVersion.WithResource(short).GroupResource().WithVersion(""))
				if err != nil || gvr.Resource != fluid.Spec.Names.Plural {
					t.Errorf("short name %s resolves to %v (%v), want %s", short, gvr, err, fluid.Spec.Names.Plural)
				}
			}
			if slices.Contains(fluid.Spec.Names.Categories, "fluid") && !slices.Contains(inCategory, datav1alpha1.Resource(fluid.Spec.Names.Plural)) {
				t.Errorf("%s is not in the category fluid (%v)", fluid.Spec.Names.Plural, inCategory)
			}
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(datav1alpha1.GroupVersion.WithKind(kind + "List"))
			if err := env.Client.List(ctxT(t), list); err != nil {
				t.Errorf("list: %v", err)
			}
		})
	}
}

// TestRefusedObjectThatExistsCanBeDeleted: an object of a refused kind that
// exists anyway (stored under Fluid's CRDs, with a finalizer of Fluid's
// controller, before Sluice's CRDs replaced them) can still be relabelled,
// deleted and freed of its finalizer, while a change of its spec, also
// through the scale subresource, is refused. The test stores it by lifting
// the rule from the CRD for a moment.
func TestRefusedObjectThatExistsCanBeDeleted(t *testing.T) {
	const kind, finalizer = "VineyardRuntime", "fluid-vineyard-controller-finalizer"
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ns := env.Namespace(t)
	name := "vineyardruntimes." + datav1alpha1.GroupName
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		t.Fatal(err)
	}
	rules := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations
	setRules := func(ctx context.Context, rs apiextensionsv1.ValidationRules) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			c := &apiextensionsv1.CustomResourceDefinition{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
				return err
			}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = rs
			return env.Client.Update(ctx, c)
		})
	}
	if err := setRules(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := setRules(context.Background(), rules); err != nil {
			t.Errorf("restoring the rule of %s: %v", name, err)
		}
	})

	old := &datav1alpha1.VineyardRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "from-fluid", Namespace: ns, Finalizers: []string{finalizer}},
		Spec:       datav1alpha1.VineyardRuntimeSpec{Replicas: 1},
	}
	eventually(ctx, t, "storing a VineyardRuntime without the rule", func() error { return env.Client.Create(ctx, old.DeepCopy()) })
	if err := setRules(ctx, rules); err != nil {
		t.Fatal(err)
	}
	probe := &datav1alpha1.VineyardRuntime{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns}}
	eventually(ctx, t, "the rule back in force", func() error {
		if err := env.Client.Create(ctx, probe.DeepCopy()); err == nil || !strings.Contains(err.Error(), datav1alpha1.RefusedMessage(kind)) {
			_ = env.Client.Delete(ctx, probe)
			return fmt.Errorf("create: %v", err)
		}
		return nil
	})

	key := client.ObjectKeyFromObject(old)
	stored := &datav1alpha1.VineyardRuntime{}
	if err := env.Client.Get(ctx, key, stored); err != nil {
		t.Fatal(err)
	}
	relabelled := stored.DeepCopy()
	relabelled.Labels = map[string]string{"team": "data"}
	if err := env.Client.Update(ctx, relabelled); err != nil {
		t.Fatalf("a change of labels only was refused: %v", err)
	}
	respec := relabelled.DeepCopy()
	respec.Spec.Replicas = 3
	checkRefusal(t, "a change of spec", kind, env.Client.Update(ctx, respec))
	scale := &autoscalingv1.Scale{}
	if err := env.Client.SubResource("scale").Get(ctx, relabelled, scale); err != nil {
		t.Fatalf("get scale: %v", err)
	}
	scale.Spec.Replicas = 4
	checkRefusal(t, "scaling", kind, env.Client.SubResource("scale").Update(ctx, relabelled, client.WithSubResourceBody(scale)))

	if err := env.Client.Delete(ctx, relabelled); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := env.Client.Get(ctx, key, stored); err != nil || stored.DeletionTimestamp == nil || stored.Spec.Replicas != 1 {
		t.Fatalf("after delete, want the object held by its finalizer with replicas 1: %+v, %v", stored, err)
	}
	stored.Finalizers = nil
	if err := env.Client.Update(ctx, stored); err != nil {
		t.Fatalf("removing the finalizer was refused: %v", err)
	}
	eventually(ctx, t, "the object gone", func() error {
		if err := env.Client.Get(ctx, key, &datav1alpha1.VineyardRuntime{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
}

// eventually retries f until it returns nil, failing the test when ctx ends.
func eventually(ctx context.Context, t *testing.T, what string, f func() error) {
	t.Helper()
	for {
		err := f()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
