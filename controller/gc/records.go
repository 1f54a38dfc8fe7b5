package gc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
)

// A FUSE record is the controller's (datav1alpha1.FuseRecord) when it is a
// PodTemplate in the records' namespace labelled as one and managed by
// Sluice, named after its runtime's UID and annotated with the runtime's
// namespace and name. It is an orphan when no runtime of that name has
// that UID, in the cache and then in the API server, and it is older than
// a Period (Sweeper.young).

// recordOwner returns the UID and "<namespace>/<name>" of the runtime whose
// FUSE record m is, and whether m is one the controller wrote.
func recordOwner(m *metav1.PartialObjectMetadata) (types.UID, string, string, bool) {
	uid, ok := strings.CutPrefix(m.Name, "fuse-")
	if !ok || uid == "" || m.Labels[datav1alpha1.LabelFuseRecord] != "true" || m.Labels["app.kubernetes.io/managed-by"] != "sluice" {
		return "", "", "", false
	}
	ns, name, ok := strings.Cut(m.Annotations[datav1alpha1.AnnotationFuseRecordRuntime], "/")
	if !ok || ns == "" || name == "" || datav1alpha1.FuseRecordName(types.UID(uid)) != m.Name {
		return "", "", "", false
	}
	return types.UID(uid), ns, name, true
}

// sweepRecords reads a page of FUSE records (their metadata) from the API
// server, on from where the last pass stopped, and deletes those of
// runtimes that are gone, at most Limit.
func (s *Sweeper) sweepRecords(ctx context.Context, o *owners) error {
	if s.FuseRecords == "" {
		return nil
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodTemplateList"))
	err := s.Live.List(ctx, list, client.InNamespace(s.FuseRecords), client.MatchingLabels{datav1alpha1.LabelFuseRecord: "true"},
		client.Limit(recordPage), client.Continue(s.recordsContinue))
	if apierrors.IsResourceExpired(err) {
		s.recordsContinue = ""
		return nil // read from the start next time
	}
	if err != nil {
		return fmt.Errorf("listing FUSE records in %s: %w", s.FuseRecords, err)
	}
	s.recordsContinue = list.Continue
	removed := 0
	for i := range list.Items {
		if removed >= s.limit() {
			// The rest of this page waits for the next pass.
			s.recordsContinue = ""
			break
		}
		uid, ns, name, ok := recordOwner(&list.Items[i])
		if !ok || o.uids[uid] || s.young(&list.Items[i]) {
			continue
		}
		live, err := s.liveRuntimes(ctx, ns, name)
		if err != nil {
			return err
		}
		if slices.Contains(live, uid) {
			continue
		}
		ctrl.LoggerFrom(ctx).Info("deleting the FUSE record of a runtime that is gone", "record", list.Items[i].Name, "runtime", ns+"/"+name)
		if err := cacheruntime.DeleteFuseRecord(ctx, s.Client, s.FuseRecords, uid); err != nil {
			return err
		}
		removed++
	}
	return nil
}
