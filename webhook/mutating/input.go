package mutating

import (
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Input is the policy input document (see docs/design/policy-decision.md).
type Input struct {
	Request        InputRequest             `json:"request"`
	Pod            any                      `json:"pod"`
	Namespace      snapshot.Namespace       `json:"namespace"`
	DatasetVolumes []snapshot.DatasetVolume `json:"datasetVolumes"`
	Cluster        InputCluster             `json:"cluster"`
}

// InputRequest describes the admission request.
type InputRequest struct {
	Operation string    `json:"operation"`
	Namespace string    `json:"namespace"`
	User      InputUser `json:"user"`
	DryRun    bool      `json:"dryRun"`
}

// InputUser is the requesting user.
type InputUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// InputCluster describes what the cluster supports.
type InputCluster struct {
	// NativeSidecars is true when init containers may have restartPolicy Always.
	NativeSidecars bool `json:"nativeSidecars"`
}

// NewInput returns the input document for req.
func NewInput(req Request, vols []snapshot.DatasetVolume, ns snapshot.Namespace, nativeSidecars bool) Input {
	if vols == nil {
		vols = []snapshot.DatasetVolume{}
	}
	groups := req.User.Groups
	if groups == nil {
		groups = []string{}
	}
	return Input{
		Request:        InputRequest{Operation: req.Operation, Namespace: req.Namespace, User: InputUser{Username: req.User.Username, Groups: groups}, DryRun: req.DryRun},
		Pod:            req.Pod,
		Namespace:      ns,
		DatasetVolumes: vols,
		Cluster:        InputCluster{NativeSidecars: nativeSidecars},
	}
}

// buildInput converts the input document into a Rego value.
func buildInput(req Request, vols []snapshot.DatasetVolume, ns snapshot.Namespace, nativeSidecars bool) (ast.Value, error) {
	raw, err := json.Marshal(NewInput(req, vols, ns, nativeSidecars))
	if err != nil {
		return nil, fmt.Errorf("encoding the policy input: %w", err)
	}
	var doc any
	if err := util.UnmarshalJSON(raw, &doc); err != nil {
		return nil, fmt.Errorf("encoding the policy input: %w", err)
	}
	return ast.InterfaceToValue(doc)
}
