package claim

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Request asks to claim a Dataset for one operation.
type Request struct {
	// Dataset is the Dataset to claim.
	Dataset types.NamespacedName
	// Kind and Name identify the operation (in the Dataset's namespace).
	Kind string
	Name string
	// Conflicts are the operation kinds whose holders block this claim, as
	// the policy decided. A kind that conflicts with itself is exclusive: it
	// has one holder at most.
	Conflicts []string
	// DryRun checks for conflicts without writing a claim.
	DryRun bool
}

// Holder is an operation that holds a Dataset.
type Holder struct {
	Kind, Name string
	// Since is when it claimed the Dataset (zero when unknown).
	Since time.Time
}

func (h Holder) String() string { return h.Kind + " " + h.Name }

// HeldError says that live operations hold the Dataset.
type HeldError struct {
	Dataset types.NamespacedName
	Holders []Holder
}

func (e *HeldError) Error() string {
	names := make([]string, len(e.Holders))
	for i, h := range e.Holders {
		names[i] = h.String()
	}
	return fmt.Sprintf("dataset %s is held by %s; one operation of a conflicting kind runs at a time", e.Dataset, strings.Join(names, ", "))
}

// NotFoundError says that the Dataset to claim does not exist.
type NotFoundError struct{ Dataset types.NamespacedName }

func (e *NotFoundError) Error() string { return fmt.Sprintf("dataset %s not found", e.Dataset) }

// Claimer claims Datasets for operations.
type Claimer struct {
	// Client reads and writes Datasets and reads operations. It must read
	// from the API server (not a cache): claims compare resource versions.
	Client client.Client
	// Grace is how long a claim is kept for an operation that does not exist
	// (yet): past it, the claim is stale and the next claim releases it.
	Grace time.Duration
	// Attempts bounds the read-modify-write retries on conflicts.
	Attempts int
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

func (c *Claimer) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Claim records req's operation as a holder of the Dataset, unless live
// operations of a conflicting kind hold it (a *HeldError). Stale holders are
// released in the same write. It is idempotent for the same operation.
func (c *Claimer) Claim(ctx context.Context, req Request) error {
	attempts := max(c.Attempts, 1)
	for range attempts {
		ds := &datav1alpha1.Dataset{}
		if err := c.Client.Get(ctx, req.Dataset, ds); err != nil {
			if apierrors.IsNotFound(err) {
				return &NotFoundError{Dataset: req.Dataset}
			}
			return fmt.Errorf("reading dataset %s: %w", req.Dataset, err)
		}
		live, stale, err := c.holders(ctx, ds, req)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			return &HeldError{Dataset: req.Dataset, Holders: live}
		}
		if req.DryRun {
			return nil
		}
		if !apply(ds, req, stale, c.now()) {
			return nil // already holds it
		}
		err = c.Client.Status().Update(ctx, ds)
		if apierrors.IsConflict(err) {
			continue // someone else wrote first: look again
		}
		if err != nil {
			return fmt.Errorf("claiming dataset %s: %w", req.Dataset, err)
		}
		return nil
	}
	return fmt.Errorf("claiming dataset %s: still contended after %d attempts; retry", req.Dataset, attempts)
}

// holders splits the Dataset's holders of conflicting kinds into live and
// stale ones; the operation itself is neither.
func (c *Claimer) holders(ctx context.Context, ds *datav1alpha1.Dataset, req Request) (live, stale []Holder, err error) {
	for _, h := range Holders(ds) {
		if !slices.Contains(req.Conflicts, h.Kind) || (h.Kind == req.Kind && h.Name == req.Name) {
			continue
		}
		released, err := c.released(ctx, ds.Namespace, h)
		if err != nil {
			return nil, nil, err
		}
		if released {
			stale = append(stale, h)
		} else {
			live = append(live, h)
		}
	}
	return live, stale, nil
}

// released reports whether a holder no longer holds: its operation finished,
// or it does not exist and its claim is older than the grace period.
func (c *Claimer) released(ctx context.Context, namespace string, h Holder) (bool, error) {
	op, ok := datav1alpha1.NewOperation(h.Kind)
	if !ok {
		return false, nil // an unknown kind keeps its hold
	}
	err := c.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: h.Name}, op)
	switch {
	case apierrors.IsNotFound(err):
		return h.Since.IsZero() || c.now().Sub(h.Since) > c.Grace, nil
	case err != nil:
		return false, fmt.Errorf("reading %s %s/%s: %w", h.Kind, namespace, h.Name, err)
	}
	return op.GetDeletionTimestamp() != nil || op.GetOperationStatus().Finished(), nil
}

// Holders returns the Dataset's holders, from status.operationRef, with the
// claim time recorded in status.operationClaims.
func Holders(ds *datav1alpha1.Dataset) []Holder {
	since := map[string]time.Time{}
	for _, cl := range ds.Status.OperationClaims {
		since[cl.Kind+"/"+cl.Name] = cl.ClaimedAt.Time
	}
	var out []Holder
	for kind, names := range ds.Status.OperationRef {
		for _, name := range datav1alpha1.SplitList(names) {
			out = append(out, Holder{Kind: kind, Name: name, Since: since[kind+"/"+name]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// apply removes the stale holders and adds the request's operation to the
// Dataset's status; it reports whether anything changed.
func apply(ds *datav1alpha1.Dataset, req Request, stale []Holder, now time.Time) bool {
	for _, h := range stale {
		Release(ds, h.Kind, h.Name)
	}
	names := datav1alpha1.SplitList(ds.Status.OperationRef[req.Kind])
	if slices.Contains(names, req.Name) && len(stale) == 0 {
		return false
	}
	if !slices.Contains(names, req.Name) {
		names = append(names, req.Name)
	}
	if ds.Status.OperationRef == nil {
		ds.Status.OperationRef = map[string]string{}
	}
	ds.Status.OperationRef[req.Kind] = strings.Join(names, ",")
	ds.Status.OperationClaims = append(ds.Status.OperationClaims, datav1alpha1.OperationClaim{Kind: req.Kind, Name: req.Name, ClaimedAt: metav1.NewTime(now)})
	return true
}

// Release removes one holder from the Dataset's status; it reports whether
// the holder was there. The controller calls it when an operation finishes
// or is deleted.
func Release(ds *datav1alpha1.Dataset, kind, name string) bool {
	names := datav1alpha1.SplitList(ds.Status.OperationRef[kind])
	i := slices.Index(names, name)
	if i >= 0 {
		names = slices.Delete(names, i, i+1)
		if len(names) == 0 {
			delete(ds.Status.OperationRef, kind)
		} else {
			ds.Status.OperationRef[kind] = strings.Join(names, ",")
		}
	}
	before := len(ds.Status.OperationClaims)
	ds.Status.OperationClaims = slices.DeleteFunc(ds.Status.OperationClaims, func(c datav1alpha1.OperationClaim) bool {
		return c.Kind == kind && c.Name == name
	})
	return i >= 0 || len(ds.Status.OperationClaims) != before
}
