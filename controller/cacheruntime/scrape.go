package cacheruntime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/controller/helm"
)

// Bounds of reading cache metrics: the controller reads pages that pods
// serve, and a pod must not be able to make it read without end, follow a
// redirect elsewhere, or hold the reconcile.
const (
	// maxMetricsPage is the largest metrics page read (an engine's is tens
	// of KiB).
	maxMetricsPage = 4 << 20
	// scrapeTimeout bounds one page's request.
	scrapeTimeout = 5 * time.Second
	// scrapeBudget bounds reading every pod of a runtime.
	scrapeBudget = 15 * time.Second
	// scrapeConcurrency is how many pods of a runtime are read at once.
	scrapeConcurrency = 8
)

// defaultHTTPClient reads metrics pages; it never follows a redirect (the
// 3xx is the answer, and is not metrics).
var defaultHTTPClient = &http.Client{Timeout: scrapeTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// readPage reads one pod's metrics page at hostPort, trying paths in turn
// until parse accepts one. Only a pod that answered (another status, a page
// that is not its metrics) is asked at the next path; one that does not
// answer is not asked again.
func (r *Reconciler) readPage(ctx context.Context, paths []string, hostPort string, parse func(io.Reader) error) error {
	if len(paths) == 0 {
		return errors.New("the engine names no metrics path")
	}
	var errs []error
	for _, path := range paths {
		answered, err := r.scrapePath(ctx, "http://"+hostPort+path, parse)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if !answered {
			break
		}
	}
	return errors.Join(errs...)
}

// scrapePath GETs one metrics page of at most maxMetricsPage bytes and
// parses it; answered says whether the pod sent an HTTP response at all.
func (r *Reconciler) scrapePath(ctx context.Context, url string, parse func(io.Reader) error) (answered bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	hc := r.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return true, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	page, err := io.ReadAll(io.LimitReader(resp.Body, maxMetricsPage+1))
	switch {
	case err != nil:
		return true, fmt.Errorf("GET %s: %w", req.URL, err)
	case len(page) > maxMetricsPage:
		return true, fmt.Errorf("GET %s: the page is larger than %d bytes", req.URL, maxMetricsPage)
	}
	if err := parse(bytes.NewReader(page)); err != nil {
		return true, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	return true, nil
}

// fromRelease reports whether pod belongs to the release: its controller
// is a StatefulSet or DaemonSet (by name and UID) that the release
// created. A pod that only carries the selector's labels is not read.
func (r *Reconciler) fromRelease(ctx context.Context, pod *corev1.Pod, release string) bool {
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return false
	}
	var owner client.Object
	switch ref.Kind {
	case "StatefulSet":
		owner = &appsv1.StatefulSet{}
	case "DaemonSet":
		owner = &appsv1.DaemonSet{}
	default:
		return false
	}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}, owner); err != nil {
		return false
	}
	return owner.GetUID() == ref.UID && owner.GetAnnotations()[helm.ReleaseNameAnnotation] == release
}
