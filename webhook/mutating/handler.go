package mutating

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// Path is where the mutating webhook is served.
const Path = "/mutate-pods"

// Handler answers Pod admission reviews with the Pipeline.
type Handler struct {
	Pipeline *Pipeline
}

var _ admission.Handler = &Handler{}

// Handle implements admission.Handler. It is guard clauses plus delegation
// to the Pipeline; a panic anywhere below becomes an error response.
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			resp = admission.Errored(http.StatusInternalServerError, fmt.Errorf("sluice mutating webhook: internal error: %v", r))
		}
		outcome := outcomeOf(resp)
		metrics.Decisions.WithLabelValues("mutating", outcome).Inc()
		metrics.AdmissionDuration.WithLabelValues("mutating", outcome).Observe(time.Since(start).Seconds())
	}()
	if req.Kind.Kind != "Pod" || req.Kind.Group != "" || req.SubResource != "" {
		return admission.Allowed("not a Pod")
	}
	if req.Operation != admissionv1.Create {
		return admission.Allowed("only Pod CREATE is mutated")
	}
	pod := &corev1.Pod{}
	// Decode as the API server does: field names are case-sensitive.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(req.Object.Raw, pod); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the Pod: %w", err))
	}
	switch {
	case pod.Namespace == "":
		pod.Namespace = req.Namespace
	case pod.Namespace != req.Namespace:
		return admission.Denied(fmt.Sprintf("the Pod's namespace %q differs from the request's %q", pod.Namespace, req.Namespace))
	}
	if pod.Labels[datav1alpha1.LabelEnableInjection] == "false" {
		return admission.Allowed("injection disabled by " + datav1alpha1.LabelEnableInjection + "=false")
	}
	if pod.Labels[datav1alpha1.LabelInjectionDone] == "true" {
		return admission.Allowed("already injected")
	}
	res, err := h.Pipeline.Mutate(ctx, Request{
		Pod: pod, Operation: string(req.Operation), Namespace: req.Namespace,
		User: req.UserInfo, DryRun: ptr.Deref(req.DryRun, false),
	})
	var denied *decision.DeniedError
	switch {
	case errors.As(err, &denied):
		resp = admission.Denied(denied.Error())
		resp.Warnings = res.Decision.Warnings
		return resp
	case err != nil:
		ctrl.LoggerFrom(ctx).Error(err, "denying Pod", "namespace", req.Namespace, "name", pod.Name, "generateName", pod.GenerateName)
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp = admission.Allowed("")
	resp.Warnings = res.Decision.Warnings
	if len(res.Patch) > 0 {
		resp.Patches = res.Patch
		resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	}
	return resp
}

func outcomeOf(resp admission.Response) string {
	switch {
	case !resp.Allowed && resp.Result != nil && resp.Result.Code >= 500:
		return "errored"
	case !resp.Allowed:
		return "denied"
	case len(resp.Patches) > 0:
		return "mutated"
	default:
		return "allowed"
	}
}
