package validating

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// scaled turns an UPDATE of a runtime's scale subresource (kubectl scale,
// an HPA) into the UPDATE of the runtime it amounts to: the runtime as
// stored, with spec.replicas from the Scale. The rules then judge it like
// any other change of replicas (the namespace's cache budget). It is nil
// for any other request.
func (h *Handler) scaled(ctx context.Context, req admission.Request) (*Request, error) {
	if req.SubResource != "scale" || req.Resource.Group != datav1alpha1.GroupName || req.Operation != admissionv1.Update ||
		!strings.HasSuffix(req.Resource.Resource, "runtimes") {
		return nil, nil
	}
	scale := &autoscalingv1.Scale{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(req.Object.Raw, scale); err != nil {
		return nil, fmt.Errorf("decoding the Scale: %w", err)
	}
	gvk, found := runtimeKind(h.Scheme.KnownTypes(datav1alpha1.GroupVersion), req.Resource.Resource)
	if !found {
		return nil, fmt.Errorf("no runtime kind is served as %s", req.Resource.Resource)
	}
	stored, err := h.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	old := stored.(client.Object)
	if err := h.Pipeline.Gatherer.Reader.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: req.Name}, old); err != nil {
		return nil, fmt.Errorf("reading %s %s/%s to scale it: %w", gvk.Kind, req.Namespace, req.Name, err)
	}
	old.GetObjectKind().SetGroupVersionKind(gvk)
	oldRaw, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(oldRaw, &m); err != nil {
		return nil, err
	}
	spec, _ := m["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		m["spec"] = spec
	}
	spec["replicas"] = scale.Spec.Replicas
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	obj, err := h.decode(raw, gvk)
	if err != nil {
		return nil, err
	}
	return &Request{Kind: gvk.Kind, Operation: string(admissionv1.Update), Object: obj, Raw: raw, Old: old, OldRaw: oldRaw}, nil
}

// runtimeKind is the kind among known whose resource (its lower-case plural)
// is resource.
func runtimeKind(known map[string]reflect.Type, resource string) (schema.GroupVersionKind, bool) {
	for kind := range known {
		if strings.ToLower(kind)+"s" == resource && strings.HasSuffix(kind, "Runtime") {
			return datav1alpha1.GroupVersion.WithKind(kind), true
		}
	}
	return schema.GroupVersionKind{}, false
}
