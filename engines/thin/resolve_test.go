package thin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/thin"
)

func reasonOf(t *testing.T, err error) string {
	t.Helper()
	var e *engines.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *engines.Error", err)
	}
	return e.Reason
}

// resolveValues resolves rt's engine through r and returns its values.
func resolveValues(r client.Reader, ds *datav1alpha1.Dataset, rt client.Object) (map[string]any, error) {
	e, err := thin.Engine{}.Resolve(context.Background(), r, rt)
	if err != nil {
		return nil, err
	}
	return e.Values(ds, rt)
}

func TestResolveReadsTheProfile(t *testing.T) {
	ds, profile, rt := sample()
	got, err := resolveValues(fakeReader(profile), ds, rt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := thin.ValuesFor(ds, profile, rt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the resolved engine's values differ from ValuesFor with the stored profile (-want +got):\n%s", diff)
	}
	if fuse := got["fuse"].(map[string]any); fuse["image"] != "registry.example.com/nfs-fuse:v1.1" {
		t.Errorf("fuse image %v: the profile was not applied", fuse["image"])
	}
}

// TestResolveReadsOnce: the resolved engine answers everything the
// reconciler asks (values, topology, mount type, clean policy) from the one
// read Resolve made, even after the stored profile changed.
func TestResolveReadsOnce(t *testing.T) {
	ds, profile, rt := sample()
	profile.Spec.Fuse.CleanPolicy = datav1alpha1.OnDemandCleanPolicy
	reads := 0
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(profile).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			reads++
			return c.Get(ctx, k, obj, opts...)
		},
	}).Build()
	e, err := thin.Engine{}.Resolve(context.Background(), c, rt)
	if err != nil {
		t.Fatal(err)
	}
	changed := profile.DeepCopy()
	changed.Spec.FileSystemType, changed.Spec.Worker.Enabled = "fuse.other", false
	changed.Spec.Fuse.CleanPolicy = datav1alpha1.OnFuseChangedCleanPolicy
	if err := c.Update(context.Background(), changed); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Values(ds, rt); err != nil {
		t.Fatal(err)
	}
	if got := e.Components(rt); got != (engines.Components{Worker: true}) {
		t.Errorf("Components = %+v", got)
	}
	v := e.Volume(rt)
	if got := v.MountType; got != "fuse.nfs-fuse" {
		t.Errorf("MountType = %q, want the fileSystemType of the profile as resolved", got)
	}
	if got := v.CleanPolicy; got != datav1alpha1.OnDemandCleanPolicy {
		t.Errorf("FuseCleanPolicy = %q, want the cleanPolicy of the profile as resolved", got)
	}
	if reads != 1 {
		t.Errorf("%d reads, want the one of Resolve", reads)
	}
}

func TestResolveProfileNotFound(t *testing.T) {
	ds, _, rt := sample()
	_, err := resolveValues(fakeReader(), ds, rt)
	if r := reasonOf(t, err); r != thin.ReasonProfileNotFound {
		t.Errorf("reason %q, want %q", r, thin.ReasonProfileNotFound)
	}
	if !strings.Contains(err.Error(), `"nfs-fuse"`) || !strings.Contains(err.Error(), "team-a/imagenet") {
		t.Errorf("message %q must name the profile and the runtime", err)
	}
}

func TestResolveWithoutProfileName(t *testing.T) {
	ds, profile, rt := sample()
	rt.Spec.ProfileName = ""
	_, err := resolveValues(fakeReader(profile), ds, rt)
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "spec.profileName") {
		t.Errorf("got %s: %v; want InvalidSpec naming spec.profileName", r, err)
	}
}

// TestResolveAPIError: a failing read is not a spec problem; the
// reconciler retries it.
func TestResolveAPIError(t *testing.T) {
	ds, profile, rt := sample()
	boom := apierrors.NewServiceUnavailable("etcd is down")
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(profile).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return boom
		},
	}).Build()
	_, err := resolveValues(c, ds, rt)
	var e *engines.Error
	if err == nil || errors.As(err, &e) || !errors.Is(err, boom) {
		t.Errorf("err = %v; want the API error, wrapped, not an engines.Error", err)
	}
}

func TestResolveRejectsOtherKinds(t *testing.T) {
	ds, profile, _ := sample()
	_, err := resolveValues(fakeReader(profile), ds, &datav1alpha1.JuiceFSRuntime{})
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec {
		t.Errorf("reason %q", r)
	}
	if _, err := (thin.ProfileEngine{Profile: profile}).Values(ds, &datav1alpha1.JuiceFSRuntime{}); reasonOf(t, err) != engines.ReasonInvalidSpec {
		t.Errorf("a resolved engine's values for another kind: %v", err)
	}
}

func TestProfileIsClusterScoped(t *testing.T) {
	_, profile, rt := sample()
	got, err := thin.Profile(context.Background(), fakeReader(profile), rt)
	if err != nil || got.Name != "nfs-fuse" || got.Namespace != "" {
		t.Fatalf("Profile = %v, %v", got, err)
	}
}

func TestValuesExplainsResolver(t *testing.T) {
	ds, _, rt := sample()
	_, err := thin.Engine{}.Values(ds, rt)
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "Resolve") || !strings.Contains(err.Error(), "spec.profileName") {
		t.Errorf("Values error %q must point to Resolve and the profile", err)
	}
}

func TestEngineIdentity(t *testing.T) {
	_, profile, rt := sample()
	e := thin.Engine{}
	if _, ok := e.NewObject().(*datav1alpha1.ThinRuntime); e.Type() != "thin" || !ok {
		t.Errorf("type %q, serving %T", e.Type(), e.NewObject())
	}
	if _, reported := e.CacheMetrics(rt); reported {
		t.Error("Thin reports no cache metrics (the FUSE program is the user's)")
	}
	if p := (thin.ProfileEngine{Profile: profile}); p.Type() != e.Type() || p.Chart() == nil || fmt.Sprintf("%T", p.NewObject()) != fmt.Sprintf("%T", e.NewObject()) {
		t.Errorf("the resolved engine is not the Thin engine: type %q, serving %T", p.Type(), p.NewObject())
	}
	if got := thin.FusePath("team-a", "imagenet"); got != "/runtime-mnt/thin/team-a/imagenet/thin-fuse" {
		t.Errorf("FusePath = %s", got)
	}
	if got := thin.MountType(profile); got != "fuse.nfs-fuse" {
		t.Errorf("MountType = %q, want the profile's fileSystemType", got)
	}
	if got := (thin.ProfileEngine{Profile: profile}).Components(rt); got != (engines.Components{Worker: true}) {
		t.Errorf("Components = %+v", got)
	}
	rt.Spec.Worker.Enabled = false
	if got := (thin.ProfileEngine{Profile: profile}).Components(rt); got != (engines.Components{}) {
		t.Errorf("Components without workers = %+v", got)
	}
	profile.Spec.Worker.Enabled = true
	if got := thin.ComponentsOf(profile, rt); got != (engines.Components{Worker: true}) {
		t.Errorf("ComponentsOf with a profile that enables workers = %+v", got)
	}
}

func TestResolvedMountType(t *testing.T) {
	_, profile, rt := sample()
	e, err := thin.Engine{}.Resolve(context.Background(), fakeReader(profile), rt)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Volume(rt).MountType; got != "fuse.nfs-fuse" {
		t.Errorf("MountType = %q; want the profile's fileSystemType", got)
	}
}

// TestFuseCleanPolicy: the runtime's spec.fuse.cleanPolicy, else the
// profile's, else Fluid's default, OnRuntimeDeleted.
func TestFuseCleanPolicy(t *testing.T) {
	for _, tc := range []struct {
		profile, runtime, want datav1alpha1.FuseCleanPolicy
	}{
		{"", "", datav1alpha1.OnRuntimeDeletedCleanPolicy},
		{datav1alpha1.OnDemandCleanPolicy, "", datav1alpha1.OnDemandCleanPolicy},
		{"", datav1alpha1.OnFuseChangedCleanPolicy, datav1alpha1.OnFuseChangedCleanPolicy},
		{datav1alpha1.OnDemandCleanPolicy, datav1alpha1.OnRuntimeDeletedCleanPolicy, datav1alpha1.OnRuntimeDeletedCleanPolicy},
	} {
		_, profile, rt := sample()
		profile.Spec.Fuse.CleanPolicy, rt.Spec.Fuse.CleanPolicy = tc.profile, tc.runtime
		if got := (thin.ProfileEngine{Profile: profile}).Volume(rt).CleanPolicy; got != tc.want {
			t.Errorf("profile %q, runtime %q: FuseCleanPolicy = %q, want %q", tc.profile, tc.runtime, got, tc.want)
		}
	}
}

func TestComponentsFollowTheProfile(t *testing.T) {
	_, profile, rt := sample()
	rt.Spec.Worker.Enabled = false
	profile.Spec.Worker.Enabled = true
	e, err := thin.Engine{}.Resolve(context.Background(), fakeReader(profile), rt)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Components(rt); got != (engines.Components{Worker: true}) {
		t.Errorf("Components with a profile enabling workers = %+v", got)
	}
	profile.Spec.Worker.Enabled = false
	if got := (thin.ProfileEngine{Profile: profile}).Components(rt); got != (engines.Components{}) {
		t.Errorf("Components without workers = %+v", got)
	}
	if _, err := (thin.Engine{}).Resolve(context.Background(), fakeReader(), rt); err == nil {
		t.Error("a missing profile must be an error")
	}
}
