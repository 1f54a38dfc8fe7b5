package workloads

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/mutating"
)

// Path is where the workload check is served.
const Path = "/validate-workloads"

// Mode is what a refused Pod template does to its workload.
type Mode string

const (
	// Warn admits the workload with the denials as warnings (the default).
	Warn Mode = "warn"
	// Deny refuses the workload with the denials.
	Deny Mode = "deny"
)

// Handler answers workload admission reviews: the Pod template, as a Pod
// of the workload's namespace created by the requesting user, goes through
// the mutating Pipeline's deny rules only (CheckOnly, as a dry run). Mode
// "" is Warn.
type Handler struct {
	Pipeline *mutating.Pipeline
	Mode     Mode
}

var _ admission.Handler = &Handler{}

// Handle implements admission.Handler. Anything but a denial (a template
// that does not decode, a policy error) admits the workload with a
// warning: its Pods are judged when they are created anyway.
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	start := time.Now()
	defer func() {
		outcome := "allowed"
		switch {
		case !resp.Allowed:
			outcome = "denied"
		case len(resp.Warnings) > 0:
			outcome = "warned"
		}
		metrics.Decisions.WithLabelValues("workloads", outcome).Inc()
		metrics.AdmissionDuration.WithLabelValues("workloads", outcome).Observe(time.Since(start).Seconds())
	}()
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update || req.SubResource != "" {
		return admission.Allowed("only a workload's CREATE and UPDATE are checked")
	}
	t, ok, err := TemplateOf(req.Kind.Kind, req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !ok {
		return admission.Allowed("not a workload with a Pod template")
	}
	if req.Operation == admissionv1.Update {
		old, _, err := TemplateOf(req.Kind.Kind, req.OldObject.Raw)
		if err == nil && reflect.DeepEqual(old.Spec, t.Spec) {
			return admission.Allowed("the Pod template is unchanged")
		}
	}
	pod := Pod(req.Namespace, req.Name, t.Spec)
	_, err = h.Pipeline.Mutate(ctx, mutating.Request{
		Pod: pod, Operation: string(admissionv1.Create), Namespace: req.Namespace,
		User: req.UserInfo, DryRun: true, CheckOnly: true,
	})
	var denied *decision.DeniedError
	switch {
	case err == nil:
		return admission.Allowed("")
	case !errors.As(err, &denied):
		return admission.Allowed("").WithWarnings(fmt.Sprintf("%s: the Pod template could not be checked against the Pod rules: %v", t.Field, err))
	}
	msgs := make([]string, len(denied.Denials))
	for i, d := range denied.Denials {
		msgs[i] = fmt.Sprintf("%s: its Pods would be refused: %s", t.Field, d.String())
	}
	if h.Mode == Deny {
		return admission.Denied(strings.Join(msgs, "; "))
	}
	return admission.Allowed("").WithWarnings(msgs...)
}
