package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Summary counts a report's results by outcome.
type Summary struct {
	// Pass counts the checks whose requirements were met.
	// +optional
	Pass int `json:"pass"`
	// Fail counts the checks whose requirements were not met.
	// +optional
	Fail int `json:"fail"`
	// Warn counts the unscored checks whose requirements were not met.
	// +optional
	Warn int `json:"warn"`
	// Error counts the checks that could not be evaluated.
	// +optional
	Error int `json:"error"`
	// Skip counts the checks not selected for evaluation.
	// +optional
	Skip int `json:"skip"`
}

// Result is a check's outcome: pass, fail, warn, error or skip.
// +kubebuilder:validation:Enum=pass;fail;warn;error;skip
type Result string

// The outcomes of a check.
const (
	// ResultPass: the requirements are met.
	ResultPass Result = "pass"
	// ResultFail: the requirements are not met.
	ResultFail Result = "fail"
	// ResultWarn: the requirements are not met, and the check is not scored.
	ResultWarn Result = "warn"
	// ResultError: the check could not be evaluated.
	ResultError Result = "error"
	// ResultSkip: the check was not selected.
	ResultSkip Result = "skip"
)

// Severity is a result's criticality: critical, high, medium, low or info.
// +kubebuilder:validation:Enum=critical;high;low;medium;info
type Severity string

// ReportResult is one policy rule's outcome for the resources it names.
type ReportResult struct {
	// Source names the policy engine that produced the result.
	// +optional
	Source string `json:"source"`
	// Policy names the policy.
	Policy string `json:"policy"`
	// Rule names the rule within the policy.
	// +optional
	Rule string `json:"rule,omitempty"`
	// Category is the policy's category.
	// +optional
	Category string `json:"category,omitempty"`
	// Severity is the result's criticality.
	// +optional
	Severity Severity `json:"severity,omitempty"`
	// Timestamp is when the result was found.
	// +optional
	Timestamp metav1.Timestamp `json:"timestamp,omitempty"`
	// Result is the outcome.
	// +optional
	Result Result `json:"result,omitempty"`
	// Scored says whether the result is scored.
	// +optional
	Scored bool `json:"scored,omitempty"`
	// Resources are the checked objects.
	// +optional
	Resources []corev1.ObjectReference `json:"resources,omitempty"`
	// ResourceSelector selects the checked objects, instead of Resources.
	// +optional
	ResourceSelector *metav1.LabelSelector `json:"resourceSelector,omitempty"`
	// Message says what the rule found.
	// +optional
	Message string `json:"message,omitempty"`
	// Properties are further details of the result.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
}

// PolicyReport holds the results of the checks of a namespace's objects.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=polr
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.scope.kind`,priority=1
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.scope.name`,priority=1
// +kubebuilder:printcolumn:name="Pass",type=integer,JSONPath=`.summary.pass`
// +kubebuilder:printcolumn:name="Fail",type=integer,JSONPath=`.summary.fail`
// +kubebuilder:printcolumn:name="Warn",type=integer,JSONPath=`.summary.warn`
// +kubebuilder:printcolumn:name="Error",type=integer,JSONPath=`.summary.error`
// +kubebuilder:printcolumn:name="Skip",type=integer,JSONPath=`.summary.skip`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type PolicyReport struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Scope is the object the report is about, if one.
	// +optional
	Scope *corev1.ObjectReference `json:"scope,omitempty"`
	// ScopeSelector selects the objects the report is about, instead of Scope.
	// +optional
	ScopeSelector *metav1.LabelSelector `json:"scopeSelector,omitempty"`
	// Summary counts the results.
	// +optional
	Summary Summary `json:"summary,omitempty"`
	// Results are the checks' outcomes.
	// +optional
	Results []ReportResult `json:"results,omitempty"`
}

// PolicyReportList is a list of PolicyReports.
//
// +kubebuilder:object:root=true
type PolicyReportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PolicyReport `json:"items"`
}

// ClusterPolicyReport holds the results of the checks of cluster-scoped
// objects.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterpolicyreports,scope=Cluster,shortName=cpolr
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.scope.kind`,priority=1
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.scope.name`,priority=1
// +kubebuilder:printcolumn:name="Pass",type=integer,JSONPath=`.summary.pass`
// +kubebuilder:printcolumn:name="Fail",type=integer,JSONPath=`.summary.fail`
// +kubebuilder:printcolumn:name="Warn",type=integer,JSONPath=`.summary.warn`
// +kubebuilder:printcolumn:name="Error",type=integer,JSONPath=`.summary.error`
// +kubebuilder:printcolumn:name="Skip",type=integer,JSONPath=`.summary.skip`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type ClusterPolicyReport struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Scope is the object the report is about, if one.
	// +optional
	Scope *corev1.ObjectReference `json:"scope,omitempty"`
	// ScopeSelector selects the objects the report is about, instead of Scope.
	// +optional
	ScopeSelector *metav1.LabelSelector `json:"scopeSelector,omitempty"`
	// Summary counts the results.
	// +optional
	Summary Summary `json:"summary,omitempty"`
	// Results are the checks' outcomes.
	// +optional
	Results []ReportResult `json:"results,omitempty"`
}

// ClusterPolicyReportList is a list of ClusterPolicyReports.
//
// +kubebuilder:object:root=true
type ClusterPolicyReportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterPolicyReport `json:"items"`
}
