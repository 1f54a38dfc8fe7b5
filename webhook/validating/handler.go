package validating

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// Path is where the validating webhook is served.
const Path = "/validate"

// Handler answers admission reviews for data operations, runtimes and
// Datasets with the Pipeline.
type Handler struct {
	Pipeline *Pipeline
	// Scheme makes new objects of Sluice's kinds to decode into.
	Scheme *runtime.Scheme
	// Recorder, if set, records an Event on the Dataset of each data
	// operation denied (but on a dry run).
	Recorder recorder.EventRecorder
}

var _ admission.Handler = &Handler{}

// Handle implements admission.Handler.
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			resp = admission.Errored(http.StatusInternalServerError, fmt.Errorf("sluice validating webhook: internal error: %v", r))
		}
		outcome := "allowed"
		switch {
		case !resp.Allowed && resp.Result != nil && resp.Result.Code >= 500:
			outcome = "errored"
		case !resp.Allowed:
			outcome = "denied"
		}
		metrics.Decisions.WithLabelValues("validating", outcome).Inc()
		metrics.AdmissionDuration.WithLabelValues("validating", outcome).Observe(time.Since(start).Seconds())
	}()
	switch r, err := h.scaled(ctx, req); {
	case err != nil:
		return admission.Errored(http.StatusInternalServerError, err)
	case r != nil:
		return h.validate(ctx, req, *r)
	}
	if req.SubResource != "" {
		// Only /scale changes what the rules judge; a status write is the
		// controller's report, not a spec change.
		return admission.Allowed("the " + req.SubResource + " subresource is not validated")
	}
	if req.Kind.Group != datav1alpha1.GroupName {
		return admission.Allowed("not a Sluice object")
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("only CREATE and UPDATE are validated")
	}
	gvk := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	obj, err := h.decode(req.Object.Raw, gvk)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	var old client.Object
	if req.Operation == admissionv1.Update {
		if old, err = h.decode(req.OldObject.Raw, gvk); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if onlyFinalizersChanged(old, obj) {
			return admission.Allowed("only finalizers changed")
		}
		if deletingMetadataOnly(old, obj) {
			return admission.Allowed("the object is being deleted and only its metadata changed")
		}
	}
	return h.validate(ctx, req, Request{Kind: req.Kind.Kind, Operation: string(req.Operation), Object: obj, Raw: req.Object.Raw, Old: old, OldRaw: req.OldObject.Raw})
}

// validate runs the pipeline for r (the request's namespace, user and
// dry-run filled in from req) and answers.
func (h *Handler) validate(ctx context.Context, req admission.Request, r Request) admission.Response {
	r.Namespace, r.User, r.DryRun = req.Namespace, req.UserInfo, ptr.Deref(req.DryRun, false)
	d, err := h.Pipeline.Validate(ctx, r)
	log := ctrl.LoggerFrom(ctx)
	if d != nil {
		metrics.Report(log, "validating", d.Verdicts, "kind", r.Kind, "namespace", req.Namespace, "name", req.Name, "user", req.UserInfo.Username, "dryRun", r.DryRun)
	}
	var denied *decision.DeniedError
	var resp admission.Response
	switch {
	case errors.As(err, &denied):
		resp = admission.Denied(deniedMessage(denied))
		h.recordDenial(ctx, r, denied)
	case err != nil:
		log.Error(err, "denying", "kind", r.Kind, "namespace", req.Namespace, "name", req.Name)
		return admission.Errored(http.StatusInternalServerError, err)
	default:
		resp = admission.Allowed("")
	}
	if d != nil {
		resp.Warnings = d.Warnings
	}
	return resp
}

// deniedMessage is a denial's message with how to get an exception to
// its policy rules (an operation held by another has none to get).
func deniedMessage(denied *decision.DeniedError) string {
	rules := slices.DeleteFunc(denied.Rules(), func(r string) bool { return r == ExclusiveRule })
	if len(rules) == 0 {
		return denied.Error()
	}
	return denied.Error() + "; " + enforcement.ExceptionHint(rules)
}

// recordDenial records a Warning Event on the Dataset of a denied data
// operation, where its owners look (kubectl describe dataset), unless
// the request is a dry run or the Dataset does not exist.
func (h *Handler) recordDenial(ctx context.Context, r Request, denied *decision.DeniedError) {
	op, ok := r.Object.(datav1alpha1.OperationObject)
	if h.Recorder == nil || r.DryRun || !ok || r.Operation != string(admissionv1.Create) {
		return
	}
	ns, name, ok := op.GetTargetDataset()
	if !ok {
		return
	}
	ds := &datav1alpha1.Dataset{}
	if err := h.Pipeline.Gatherer.Reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		return
	}
	h.Recorder.Eventf(ds, nil, corev1.EventTypeWarning, "OperationDenied", "Admit",
		"%s %s/%s denied: %s", r.Kind, op.GetNamespace(), op.GetName(), truncate(denied.Error(), 900))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// decode decodes a Sluice object the way the API server does (field names
// are case-sensitive), straight into its Go type.
func (h *Handler) decode(raw []byte, gvk schema.GroupVersionKind) (client.Object, error) {
	obj, err := h.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gvk.Kind, err)
	}
	co, ok := obj.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gvk.Kind)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, co); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gvk.Kind, err)
	}
	return co, nil
}

// onlyFinalizersChanged says whether an UPDATE changes the object's
// finalizers and nothing else (apart from what every write changes:
// resourceVersion, managedFields): a controller adding or removing its
// finalizer. No policy judges finalizers, and a rule that denied the
// update for another reason (a mount scheme forbidden since the Dataset
// was created) would keep a deleted object from ever going.
func onlyFinalizersChanged(old, obj client.Object) bool {
	if slices.Equal(old.GetFinalizers(), obj.GetFinalizers()) {
		return false
	}
	return equalApartFrom(old, obj, func(o client.Object) { o.SetFinalizers(nil) })
}

// deletingMetadataOnly says whether an UPDATE of an object being deleted
// changes its metadata only (labels, annotations, finalizers): the
// data.sluice.io/force-delete annotation, say, which must reach a Dataset
// that a rule made since its creation would deny, or it could never go.
func deletingMetadataOnly(old, obj client.Object) bool {
	if old.GetDeletionTimestamp().IsZero() {
		return false
	}
	return equalApartFrom(old, obj, func(o client.Object) {
		o.SetLabels(nil)
		o.SetAnnotations(nil)
		o.SetFinalizers(nil)
		o.SetGeneration(0)
	})
}

// equalApartFrom says whether old and obj are equal once reset has
// cleared, on copies of both, what the UPDATE may change, besides what
// every write changes (resourceVersion, managedFields).
func equalApartFrom(old, obj client.Object, reset func(client.Object)) bool {
	a, b := old.DeepCopyObject().(client.Object), obj.DeepCopyObject().(client.Object)
	for _, o := range []client.Object{a, b} {
		reset(o)
		o.SetResourceVersion("")
		o.SetManagedFields(nil)
	}
	return equality.Semantic.DeepEqual(a, b)
}
