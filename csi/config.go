package csi

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// DriverName is the CSI driver Sluice serves, Fluid's.
const DriverName = "fuse.csi.fluid.io"

// Config configures a Driver.
type Config struct {
	// Name is the driver name; default DriverName.
	Name string
	// Version is reported by GetPluginInfo.
	Version string
	// NodeID is this node's name.
	NodeID string
	// Endpoint is where gRPC is served, e.g. unix:///csi/csi.sock.
	Endpoint string
	// Mounter performs mounts; NewSyscallMounter() on a real node.
	Mounter Mounter
	// Labeler sets and removes node labels; nil disables lazy FUSE labels.
	Labeler NodeLabeler
	// StateDir keeps what NodeStageVolume learned, for NodeUnstageVolume.
	StateDir string
	// PublishTimeout bounds the wait for the FUSE mount in NodePublishVolume.
	PublishTimeout time.Duration
	// PollInterval is how often the FUSE mount is looked for.
	PollInterval time.Duration
	// Fuse reports FUSE DaemonSet generations for cleanPolicy OnFuseChanged;
	// nil treats OnFuseChanged as OnRuntimeDeleted.
	Fuse FuseWatcher
	// Events records FUSE recovery events on Pods; nil records none.
	Events EventSink
	// MountInfoPath is read to find the bind mounts of a FUSE mount;
	// default /proc/self/mountinfo.
	MountInfoPath string
	// FuseRoot is the directory every engine's FUSE mounts datasets under
	// (default DefaultFuseRoot): a volume whose fluid_path is elsewhere is
	// refused, so a PV cannot make the plugin bind-mount another host
	// directory into a Pod.
	FuseRoot string
	// PublishMethod is how NodePublishVolume publishes a volume whose
	// attributes do not say (node_publish_method): PublishBind (the
	// default) or PublishSymlink, where a link is safe (see bySymlink).
	PublishMethod string
	// UpdatedbConf is the node's updatedb.conf as the plugin sees it; when
	// set, the plugin adds PruneFS and the FUSE root to its PRUNEFS and
	// PRUNEPATHS at start (PruneUpdatedb), so that updatedb does not crawl
	// datasets. "" leaves it alone.
	UpdatedbConf string
	// PruneFS are the FUSE file-system types added to PRUNEFS.
	PruneFS []string
}

// DefaultFuseRoot is where the engines' FUSE programs mount datasets on
// nodes (/runtime-mnt/<engine>/<namespace>/<name>/...).
const DefaultFuseRoot = "/runtime-mnt"

// checkFluidPath refuses a fluid_path that is not absolute, not clean or
// not below root.
func checkFluidPath(root, p string) error {
	rel, err := filepath.Rel(root, p)
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("fluid_path %q is not a directory below the FUSE root %s", p, root)
	}
	return nil
}

func (c *Config) defaults() {
	if c.Name == "" {
		c.Name = DriverName
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.PublishTimeout == 0 {
		c.PublishTimeout = 30 * time.Second
	}
	if c.MountInfoPath == "" {
		c.MountInfoPath = "/proc/self/mountinfo"
	}
	if c.FuseRoot == "" {
		c.FuseRoot = DefaultFuseRoot
	}
	if c.PublishMethod == "" {
		c.PublishMethod = PublishBind
	}
	if c.PollInterval == 0 {
		c.PollInterval = 200 * time.Millisecond
	}
}

func (c *Config) validate() error {
	var errs []error
	if c.NodeID == "" {
		errs = append(errs, errors.New("a node ID is required (--nodeid)"))
	}
	if !strings.HasPrefix(c.Endpoint, "unix://") && !strings.HasPrefix(c.Endpoint, "/") {
		errs = append(errs, fmt.Errorf("endpoint %q must be unix:///path or /path", c.Endpoint))
	}
	if c.Mounter == nil {
		errs = append(errs, errors.New("a mounter is required"))
	}
	if c.StateDir == "" {
		errs = append(errs, errors.New("a state directory is required"))
	}
	if !filepath.IsAbs(c.FuseRoot) || filepath.Clean(c.FuseRoot) != c.FuseRoot {
		errs = append(errs, fmt.Errorf("the FUSE root %q must be a clean absolute path", c.FuseRoot))
	}
	if err := checkPublishMethod(c.PublishMethod); err != nil {
		errs = append(errs, err)
	}
	if len(c.Name) > 63 {
		errs = append(errs, fmt.Errorf("driver name %q is longer than 63 characters", c.Name))
	}
	return errors.Join(errs...)
}
