package certs

import (
	"testing"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCertificateReady(t *testing.T) {
	cond := func(typ cmapi.CertificateConditionType, status cmmeta.ConditionStatus, reason string, gen int64) cmapi.CertificateCondition {
		return cmapi.CertificateCondition{Type: typ, Status: status, Reason: reason, Message: reason + " message", ObservedGeneration: gen}
	}
	for _, tc := range []struct {
		name       string
		conditions []cmapi.CertificateCondition
		generation int64
		ready      bool
		reason     string
	}{
		{"no conditions yet", nil, 1, false, "NoReadyCondition"},
		{"issuing, not ready", []cmapi.CertificateCondition{cond(cmapi.CertificateConditionIssuing, cmmeta.ConditionTrue, "Issuing", 1), cond(cmapi.CertificateConditionReady, cmmeta.ConditionFalse, "DoesNotExist", 1)}, 1, false, "DoesNotExist"},
		{"ready", []cmapi.CertificateCondition{cond(cmapi.CertificateConditionReady, cmmeta.ConditionTrue, "Ready", 2)}, 2, true, "Ready"},
		{"ready for an older spec", []cmapi.CertificateCondition{cond(cmapi.CertificateConditionReady, cmmeta.ConditionTrue, "Ready", 1)}, 2, false, "Outdated"},
		{"ready, generation not reported", []cmapi.CertificateCondition{cond(cmapi.CertificateConditionReady, cmmeta.ConditionTrue, "Ready", 0)}, 3, true, "Ready"},
		{"unknown", []cmapi.CertificateCondition{cond(cmapi.CertificateConditionReady, cmmeta.ConditionUnknown, "Pending", 1)}, 1, false, "Pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cmapi.Certificate{ObjectMeta: metav1.ObjectMeta{Generation: tc.generation}, Status: cmapi.CertificateStatus{Conditions: tc.conditions}}
			ready, reason, message := certificateReady(c)
			if ready != tc.ready || reason != tc.reason || message == "" {
				t.Errorf("certificateReady = %v, %q, %q; want %v, %q and a message", ready, reason, message, tc.ready, tc.reason)
			}
		})
	}
}
