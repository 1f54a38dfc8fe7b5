package thin_test

import (
	"context"
	"errors"
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

func TestResolveValuesReadsTheProfile(t *testing.T) {
	ds, profile, rt := sample()
	got, err := thin.Engine{}.ResolveValues(context.Background(), fakeReader(profile), ds, rt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := thin.ValuesFor(ds, profile, rt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolveValues differs from ValuesFor with the stored profile (-want +got):\n%s", diff)
	}
	if fuse := got["fuse"].(map[string]any); fuse["image"] != "registry.example.com/nfs-fuse:v1.1" {
		t.Errorf("fuse image %v: the profile was not applied", fuse["image"])
	}
}

func TestResolveValuesProfileNotFound(t *testing.T) {
	ds, _, rt := sample()
	_, err := thin.Engine{}.ResolveValues(context.Background(), fakeReader(), ds, rt)
	if r := reasonOf(t, err); r != thin.ReasonProfileNotFound {
		t.Errorf("reason %q, want %q", r, thin.ReasonProfileNotFound)
	}
	if !strings.Contains(err.Error(), `"nfs-fuse"`) || !strings.Contains(err.Error(), "team-a/imagenet") {
		t.Errorf("message %q must name the profile and the runtime", err)
	}
}

func TestResolveValuesWithoutProfileName(t *testing.T) {
	ds, profile, rt := sample()
	rt.Spec.ProfileName = ""
	_, err := thin.Engine{}.ResolveValues(context.Background(), fakeReader(profile), ds, rt)
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "spec.profileName") {
		t.Errorf("got %s: %v; want InvalidSpec naming spec.profileName", r, err)
	}
}

// TestResolveValuesAPIError: a failing read is not a spec problem; the
// reconciler retries it.
func TestResolveValuesAPIError(t *testing.T) {
	ds, profile, rt := sample()
	boom := apierrors.NewServiceUnavailable("etcd is down")
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(profile).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return boom
		},
	}).Build()
	_, err := thin.Engine{}.ResolveValues(context.Background(), c, ds, rt)
	var e *engines.Error
	if err == nil || errors.As(err, &e) || !errors.Is(err, boom) {
		t.Errorf("err = %v; want the API error, wrapped, not an engines.Error", err)
	}
}

func TestResolveValuesRejectsOtherKinds(t *testing.T) {
	ds, profile, _ := sample()
	_, err := thin.Engine{}.ResolveValues(context.Background(), fakeReader(profile), ds, &datav1alpha1.JuiceFSRuntime{})
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec {
		t.Errorf("reason %q", r)
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
	if r := reasonOf(t, err); r != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "ResolveValues") || !strings.Contains(err.Error(), "spec.profileName") {
		t.Errorf("Values error %q must point to ResolveValues and the profile", err)
	}
}

func TestEngineIdentity(t *testing.T) {
	_, profile, rt := sample()
	e := thin.Engine{}
	if e.Type() != "thin" || len(e.Operations()) != 1 || e.Operations()[0] != datav1alpha1.DataProcessKind {
		t.Errorf("type %q, operations %v", e.Type(), e.Operations())
	}
	if got := thin.FusePath("team-a", "imagenet"); got != "/runtime-mnt/thin/team-a/imagenet/thin-fuse" {
		t.Errorf("FusePath = %s", got)
	}
	if got := thin.MountType(profile); got != "fuse.nfs-fuse" {
		t.Errorf("MountType = %q, want the profile's fileSystemType", got)
	}
	if got, err := e.ResolveComponents(context.Background(), fakeReader(profile), rt); err != nil || got != (engines.Components{Worker: true}) {
		t.Errorf("ResolveComponents = %+v, %v", got, err)
	}
	rt.Spec.Worker.Enabled = false
	if got, err := e.ResolveComponents(context.Background(), fakeReader(profile), rt); err != nil || got != (engines.Components{}) {
		t.Errorf("ResolveComponents without workers = %+v, %v", got, err)
	}
	profile.Spec.Worker.Enabled = true
	if got := thin.ComponentsOf(profile, rt); got != (engines.Components{Worker: true}) {
		t.Errorf("ComponentsOf with a profile that enables workers = %+v", got)
	}
}

func TestMountTypeFrom(t *testing.T) {
	_, profile, rt := sample()
	got, err := thin.MountTypeFrom(fakeReader(profile))(context.Background(), rt)
	if err != nil || got != "fuse.nfs-fuse" {
		t.Errorf("MountTypeFrom = %q, %v; want the profile's fileSystemType", got, err)
	}
	if _, err := thin.MountTypeFrom(fakeReader())(context.Background(), rt); reasonOf(t, err) != thin.ReasonProfileNotFound {
		t.Errorf("missing profile: %v", err)
	}
}

func TestResolveComponentsReadsTheProfile(t *testing.T) {
	_, profile, rt := sample()
	rt.Spec.Worker.Enabled = false
	profile.Spec.Worker.Enabled = true
	got, err := thin.Engine{}.ResolveComponents(context.Background(), fakeReader(profile), rt)
	if err != nil || got != (engines.Components{Worker: true}) {
		t.Errorf("ResolveComponents with a profile enabling workers = %+v, %v", got, err)
	}
	profile.Spec.Worker.Enabled = false
	if got, err := (thin.Engine{}).ResolveComponents(context.Background(), fakeReader(profile), rt); err != nil || got != (engines.Components{}) {
		t.Errorf("ResolveComponents without workers = %+v, %v", got, err)
	}
	if _, err := (thin.Engine{}).ResolveComponents(context.Background(), fakeReader(), rt); err == nil {
		t.Error("a missing profile must be an error")
	}
}
