package csi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

type fakeLabeler struct {
	labels map[string]string
	err    error
}

func (f *fakeLabeler) SetLabel(_ context.Context, _, key, value string) error {
	if f.err != nil {
		return f.err
	}
	f.labels[key] = value
	return nil
}

func (f *fakeLabeler) RemoveLabel(_ context.Context, _, key string) error {
	if f.err != nil {
		return f.err
	}
	delete(f.labels, key)
	return nil
}

// fakeMounter is mount-utils' fake mounter, recording BindDir as a bind
// mount of the directory's name.
type fakeMounter struct{ *mount.FakeMounter }

func (f fakeMounter) BindDir(dir *os.File, target string, readOnly bool) error {
	opts := []string{"bind"}
	if readOnly {
		opts = append(opts, "ro")
	}
	return f.Mount(dir.Name(), target, "", opts)
}

func newTestDriver(t *testing.T, m *mount.FakeMounter, l NodeLabeler) *Driver {
	t.Helper()
	d, err := New(Config{NodeID: "n1", Endpoint: "unix:///tmp/x.sock", Mounter: fakeMounter{m}, Labeler: l, StateDir: t.TempDir(), FuseRoot: os.TempDir(),
		PublishTimeout: 100 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var mountCap = &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
	AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}}

var blockCap = &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}}

func TestNewValidatesConfig(t *testing.T) {
	_, err := New(Config{Endpoint: "tcp://x"})
	for _, want := range []string{"node ID is required", `endpoint "tcp://x"`, "mounter is required", "state directory is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
}

func TestNodePublishErrors(t *testing.T) {
	fuseDir := t.TempDir()
	live := []mount.MountPoint{{Device: "sluicetest", Path: fuseDir, Type: "fuse.sluicetest"}}
	vc := map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir}
	tests := []struct {
		name    string
		mounts  []mount.MountPoint
		mountEr error
		req     *csi.NodePublishVolumeRequest
		want    codes.Code
		msg     string
	}{
		// name, existing mounts, mount error, request, code, message part
		{"no volume ID", nil, nil, &csi.NodePublishVolumeRequest{TargetPath: "/t", VolumeCapability: mountCap}, codes.InvalidArgument, "volume ID"},
		{"no target", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", VolumeCapability: mountCap}, codes.InvalidArgument, "target path"},
		{"no capability", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t"}, codes.InvalidArgument, "capability"},
		{"block volume", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t", VolumeCapability: blockCap, VolumeContext: vc}, codes.InvalidArgument, "block volumes"},
		{"no fluid_path", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t", VolumeCapability: mountCap}, codes.InvalidArgument, "fluid_path"},
		// audit L10: a PV cannot point the plugin at another host directory.
		{"fluid_path outside the FUSE root", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t", VolumeCapability: mountCap,
			VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: "/etc"}}, codes.InvalidArgument, "not a directory below the FUSE root"},
		{"fluid_path climbing out", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t", VolumeCapability: mountCap,
			VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: filepath.Join(os.TempDir(), "x") + "/../../etc"}}, codes.InvalidArgument, "not a directory below the FUSE root"},
		{"fluid_path the FUSE root itself", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: "/t", VolumeCapability: mountCap,
			VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: os.TempDir()}}, codes.InvalidArgument, "not a directory below the FUSE root"},
		{"FUSE not mounted", nil, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: filepath.Join(t.TempDir(), "t"), VolumeCapability: mountCap, VolumeContext: vc}, codes.DeadlineExceeded, "is not ready"},
		{"sub-path missing", live, nil, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: filepath.Join(t.TempDir(), "t"), VolumeCapability: mountCap,
			VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrSubPath: "nope"}}, codes.FailedPrecondition, "sub-path"},
		{"bind mount fails", live, errors.New("permission denied"), &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: filepath.Join(t.TempDir(), "t"), VolumeCapability: mountCap, VolumeContext: vc}, codes.Internal, "permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mount.NewFakeMounter(tt.mounts)
			if tt.mountEr != nil {
				m.MountCheckErrors = map[string]error{tt.req.GetTargetPath(): tt.mountEr}
			}
			_, err := newTestDriver(t, m, nil).NodePublishVolume(context.Background(), tt.req)
			if status.Code(err) != tt.want || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestLocksAbortConcurrentCalls(t *testing.T) {
	d := newTestDriver(t, mount.NewFakeMounter(nil), nil)
	d.targets.tryLock("/busy")
	_, err := d.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "v", TargetPath: "/busy"})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("want Aborted, got %v", err)
	}
	d.volumes.tryLock("v")
	_, err = d.NodeStageVolume(context.Background(), &csi.NodeStageVolumeRequest{VolumeId: "v", StagingTargetPath: "/s", VolumeCapability: mountCap,
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: filepath.Join(os.TempDir(), "f")}})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("want Aborted, got %v", err)
	}
}

func TestStageLabelsAndUnstageAppliesCleanPolicy(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		policy    string
		wantLabel bool // label left after unstage
	}{{"OnDemand", false}, {"OnRuntimeDeleted", true}, {"", true}} {
		t.Run("policy "+tt.policy, func(t *testing.T) {
			l := &fakeLabeler{labels: map[string]string{}}
			d := newTestDriver(t, mount.NewFakeMounter(nil), l)
			vc := map[string]string{datav1alpha1.VolumeAttrFluidPath: t.TempDir(), datav1alpha1.VolumeAttrNodeSelectorKey: "fluid.io/f-ns-ds", datav1alpha1.VolumeAttrFuseCleanPolicy: tt.policy}
			req := &csi.NodeStageVolumeRequest{VolumeId: "ns-ds", StagingTargetPath: "/s", VolumeCapability: mountCap, VolumeContext: vc}
			for range 2 { // idempotent
				if _, err := d.NodeStageVolume(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			if l.labels["fluid.io/f-ns-ds"] != "true" {
				t.Fatalf("labels after stage: %v", l.labels)
			}
			for range 2 {
				if _, err := d.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: "ns-ds", StagingTargetPath: "/s"}); err != nil {
					t.Fatal(err)
				}
			}
			if _, kept := l.labels["fluid.io/f-ns-ds"]; kept != tt.wantLabel {
				t.Fatalf("label kept = %v, want %v", kept, tt.wantLabel)
			}
		})
	}
	l := &fakeLabeler{labels: map[string]string{}, err: errors.New("forbidden")}
	d := newTestDriver(t, mount.NewFakeMounter(nil), l)
	_, err := d.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{VolumeId: "v", StagingTargetPath: "/s", VolumeCapability: mountCap,
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: t.TempDir(), datav1alpha1.VolumeAttrNodeSelectorKey: "k"}})
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("a failing label patch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.cfg.StateDir, "x.json")); !os.IsNotExist(err) {
		t.Fatalf("unexpected state file: %v", err)
	}
}
