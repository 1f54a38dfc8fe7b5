package csi

import (
	"context"
	"fmt"
	"os"
	"time"

	mount "k8s.io/mount-utils"
	ctrl "sigs.k8s.io/controller-runtime"
)

// EventSink records events about the Pods whose mounts the plugin repairs.
type EventSink interface {
	Event(namespace, pod, eventType, reason, message string)
}

// Event reasons of FUSE recovery.
const (
	ReasonFuseRecovered     = "FuseRecoverSucceed"
	ReasonFuseRecoverFailed = "FuseRecoverFailed"
)

// RunRecovery repairs published volumes every interval until ctx ends.
func (d *Driver) RunRecovery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		d.Recover(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Recover makes one pass over the published volumes: a target whose bind
// mount points at a FUSE mount that died (ENOTCONN) is re-bound to the
// fresh FUSE mount once one is live at fluid_path. Every mount stacked at
// the target is removed first, so repairs never stack duplicates. It reports
// how many targets it repaired.
func (d *Driver) Recover(ctx context.Context) int {
	log := ctrl.Log.WithName("csi-recover")
	pubs, err := d.listPublished()
	if err != nil {
		log.Error(err, "listing published volumes")
		return 0
	}
	repaired := 0
	for _, p := range pubs {
		if ctx.Err() != nil {
			return repaired
		}
		if p.Symlink {
			continue // a link follows the FUSE by itself; there is no mount to re-bind
		}
		if _, err := os.Stat(p.Target); err == nil || !mount.IsCorruptedMnt(err) {
			continue // healthy, or not ours to judge
		}
		live, err := d.fuseMounted(p.FluidPath)
		if err != nil || !live {
			continue // the FUSE pod has not mounted again yet
		}
		if _, err := os.Stat(p.FluidPath); err != nil {
			continue
		}
		if !d.targets.tryLock(p.Target) {
			continue // publish or unpublish is running; next pass
		}
		err = d.rebind(p)
		d.targets.unlock(p.Target)
		if err != nil {
			log.Error(err, "re-binding", "target", p.Target)
			d.event(p, "Warning", ReasonFuseRecoverFailed, fmt.Sprintf("re-binding the dataset mount at %s failed: %v", p.Target, err))
			continue
		}
		repaired++
		log.Info("re-bound the dataset mount after FUSE restarted", "target", p.Target, "source", p.Source)
		d.event(p, "Normal", ReasonFuseRecovered, fmt.Sprintf("FUSE at %s restarted; the dataset mount at %s was re-bound", p.FluidPath, p.Target))
	}
	return repaired
}

// rebind replaces the mounts at p.Target by a bind mount of p's source.
// The record is read from disk, and the FUSE program that restarted may
// serve other symbolic links: the source is opened again as
// NodePublishVolume opens it (openSource), and the open directory is
// mounted. A source that cannot be opened leaves the target as it was.
func (d *Driver) rebind(p published) error {
	if err := checkFluidPath(d.cfg.FuseRoot, p.FluidPath); err != nil {
		return err
	}
	sub, err := subPathOf(p)
	if err != nil {
		return err
	}
	dir, err := openSource(d.cfg.FuseRoot, p.FluidPath, sub)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := d.unmountAll(p.Target); err != nil {
		return err
	}
	if err := os.MkdirAll(p.Target, 0o750); err != nil {
		return err
	}
	return d.cfg.Mounter.BindDir(dir, p.Target, p.ReadOnly)
}

func (d *Driver) event(p published, eventType, reason, msg string) {
	if d.cfg.Events != nil && p.PodName != "" {
		d.cfg.Events.Event(p.PodNamespace, p.PodName, eventType, reason, msg)
	}
}
