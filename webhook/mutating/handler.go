package mutating

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// Path is where the mutating webhook is served.
const Path = "/mutate-pods"

// Handler answers Pod admission reviews with the Pipeline.
type Handler struct {
	Pipeline *Pipeline
	// InjectionDisabled, when set and true, turns injection off for every
	// Pod (Fluid's DISABLE_INJECTION): each is judged by the deny rules
	// alone and admitted unmutated, as a Pod that opted out is.
	InjectionDisabled func() bool
}

var _ admission.Handler = &Handler{}

// Handle implements admission.Handler. It is guard clauses plus delegation
// to the Pipeline; a panic anywhere below becomes an error response. An
// error (not a policy's denial) refuses a Pod that asked for injection,
// which must not run half-done; any other Pod reached the fail-open
// webhook, whose mutation is an optimisation: it is admitted unmutated
// with a warning (failurePolicy Ignore covers only a webhook that does not
// answer, not an answer that refuses).
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	start := time.Now()
	var pod *corev1.Pod
	defer func() {
		if r := recover(); r != nil {
			resp = h.failed(ctx, req, pod, fmt.Errorf("sluice mutating webhook: internal error: %v", r))
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
	pod = &corev1.Pod{}
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
	// A skipped Pod is left unmutated, but the deny rules still judge it.
	reason, skip := Skipped(pod)
	disabled := !skip && h.InjectionDisabled != nil && h.InjectionDisabled()
	if disabled {
		reason, skip = InjectionDisabledReason, true
	}
	res, err := h.Pipeline.Mutate(ctx, Request{
		Pod: pod, Operation: string(req.Operation), Namespace: req.Namespace,
		User: req.UserInfo, DryRun: ptr.Deref(req.DryRun, false), CheckOnly: skip,
	})
	if res != nil {
		metrics.Report(ctrl.LoggerFrom(ctx), "mutating", res.Verdicts, "namespace", req.Namespace, "name", pod.Name,
			"generateName", pod.GenerateName, "user", req.UserInfo.Username, "dryRun", ptr.Deref(req.DryRun, false))
	}
	var denied *decision.DeniedError
	switch {
	case errors.As(err, &denied):
		resp = admission.Denied(denied.Error() + "; " + enforcement.ExceptionHint(denied.Rules()))
		resp.Warnings = res.Decision.Warnings
		return resp
	case err != nil:
		return h.failed(ctx, req, pod, err)
	case disabled:
		return disabledResponse(pod, res.Decision)
	case skip:
		return admission.Allowed(reason)
	}
	resp = admission.Allowed("")
	resp.Warnings = res.Decision.Warnings
	if len(res.Patch) > 0 {
		resp.Patches = res.Patch
		resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	}
	return resp
}

// InjectionDisabledReason is why a Pod is admitted unmutated while
// injection is disabled cluster-wide.
const InjectionDisabledReason = "injection is disabled cluster-wide (webhook --disable-injection or DISABLE_INJECTION)"

// InjectionDisabledWarning is the warning of a Pod that asked for
// injection, or that the policies would have mutated, admitted unmutated
// because injection is disabled cluster-wide.
const InjectionDisabledWarning = "sluice: " + InjectionDisabledReason + ": this Pod is admitted without the FUSE sidecar, data affinity or any other mutation Sluice would have made"

// disabledResponse admits a Pod unmutated while injection is disabled,
// warning its author when it asked for injection or when the policies
// would have changed it, with the policies' own warnings.
func disabledResponse(pod *corev1.Pod, d *decision.Mutating) admission.Response {
	resp := admission.Allowed(InjectionDisabledReason)
	if FailsClosed(pod) || !d.Empty() {
		resp.Warnings = append(resp.Warnings, InjectionDisabledWarning)
	}
	resp.Warnings = append(resp.Warnings, d.Warnings...)
	return resp
}

// failed answers a review the webhook could not handle: refused for a Pod
// that asked for injection (and did not opt out of it), admitted unmutated
// with a warning otherwise.
func (h *Handler) failed(ctx context.Context, req admission.Request, pod *corev1.Pod, err error) admission.Response {
	log := ctrl.LoggerFrom(ctx)
	if pod == nil || FailsClosed(pod) {
		log.Error(err, "denying Pod", "namespace", req.Namespace)
		return admission.Errored(http.StatusInternalServerError, err)
	}
	log.Error(err, "admitting Pod unmutated: it did not ask for injection", "namespace", req.Namespace, "name", pod.Name, "generateName", pod.GenerateName)
	resp := admission.Allowed("admitted unmutated: " + err.Error())
	resp.Warnings = []string{ErroredOpenWarning(err)}
	resp.Result.Reason = erroredOpen
	return resp
}

// ErroredOpenWarning is the warning of a Pod admitted unmutated because
// mutating it failed with err.
func ErroredOpenWarning(err error) string {
	return "sluice: admitted without Sluice's data-affinity optimisation, which failed: " + truncate(err.Error(), 300)
}

// erroredOpen marks a Pod admitted unmutated after an error.
const erroredOpen metav1.StatusReason = "ErroredOpen"

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func outcomeOf(resp admission.Response) string {
	switch {
	case resp.Allowed && resp.Result != nil && resp.Result.Reason == erroredOpen:
		return "errored-open"
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
