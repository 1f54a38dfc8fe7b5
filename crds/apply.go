package crds

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/semver"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// VersionAnnotation records, on each CRD it applies, the Sluice version
// whose CRDs `sluice crds apply` applied.
const VersionAnnotation = "sluice.io/crds-version"

// FieldManager owns the fields `sluice crds apply` sets.
const FieldManager = "sluice-crds"

// Options tune Apply.
type Options struct {
	// Version is the applying binary's version, stamped on each CRD.
	Version string
	// AllowDowngrade applies over CRDs a newer version applied.
	AllowDowngrade bool
	// DryRun asks the API server to validate without persisting.
	DryRun bool
	// Timeout bounds the wait for every CRD to be established; 0 does not
	// wait.
	Timeout time.Duration
}

// Apply applies the CRDs server-side (taking over the fields Helm or
// kubectl set), after checking that none was applied by a newer Sluice
// than o.Version: their schemas may serve fields the older CRDs would
// prune from every stored object on its next write. A version that is
// not semantic (a development build) is never judged newer or older.
func Apply(ctx context.Context, c client.Client, crds []*apiextensionsv1.CustomResourceDefinition, o Options) error {
	for _, crd := range crds {
		live := &apiextensionsv1.CustomResourceDefinition{}
		err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, live)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading CRD %s: %w", crd.Name, err)
		}
		if applied := live.Annotations[VersionAnnotation]; newer(applied, o.Version) && !o.AllowDowngrade {
			return fmt.Errorf("CRD %s was applied by Sluice %s, newer than this binary's %s: applying older CRDs would drop the fields they add from stored objects; run the newer binary's `sluice crds apply`, or pass --allow-downgrade", crd.Name, applied, o.Version)
		}
	}
	opts := []client.ApplyOption{client.FieldOwner(FieldManager), client.ForceOwnership}
	if o.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	for _, crd := range crds {
		u, err := toApply(crd, o.Version)
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), opts...); err != nil {
			return fmt.Errorf("applying CRD %s: %w", crd.Name, err)
		}
	}
	if o.DryRun || o.Timeout == 0 {
		return nil
	}
	return waitEstablished(ctx, c, crds, o.Timeout)
}

// newer says whether version a is a later semantic version than b.
func newer(a, b string) bool {
	a, b = "v"+trimV(a), "v"+trimV(b)
	return semver.IsValid(a) && semver.IsValid(b) && semver.Compare(a, b) > 0
}

func trimV(s string) string {
	if len(s) > 0 && s[0] == 'v' {
		return s[1:]
	}
	return s
}

// toApply is the apply configuration of crd: its spec and metadata, with
// the version annotation.
func toApply(crd *apiextensionsv1.CustomResourceDefinition, version string) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return nil, fmt.Errorf("converting CRD %s: %w", crd.Name, err)
	}
	u := &unstructured.Unstructured{Object: obj}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[VersionAnnotation] = version
	u.SetAnnotations(ann)
	return u, nil
}

// waitEstablished waits until the API server serves every CRD.
func waitEstablished(ctx context.Context, c client.Client, crds []*apiextensionsv1.CustomResourceDefinition, timeout time.Duration) error {
	for _, crd := range crds {
		var last string
		err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			live := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, live); err != nil {
				return false, err
			}
			for _, cond := range live.Status.Conditions {
				if cond.Type == apiextensionsv1.Established {
					last = cond.Message
					return cond.Status == apiextensionsv1.ConditionTrue, nil
				}
			}
			return false, nil
		})
		if err != nil {
			if last != "" {
				err = errors.Join(err, errors.New(last))
			}
			return fmt.Errorf("waiting for CRD %s to be established: %w", crd.Name, err)
		}
	}
	return nil
}
