package csi

import (
	"fmt"
	"slices"

	"golang.org/x/sys/unix"
	mount "k8s.io/mount-utils"
)

// SyscallMounter is mount-utils' Linux mounter with bind mounts and
// unmounts done by mount(2) and umount(2) instead of running the mount and
// umount programs, which keeps NodePublishVolume and NodeUnpublishVolume off
// process creation. Every other call, and mounts with other options, go to
// mount-utils.
type SyscallMounter struct {
	mount.Interface
}

// NewSyscallMounter returns a SyscallMounter over mount.New("").
func NewSyscallMounter() *SyscallMounter { return &SyscallMounter{Interface: mount.New("")} }

// Mount bind-mounts source at target when options are "bind" and optionally
// "ro" (a read-only bind is a bind followed by a read-only remount, as the
// kernel requires); anything else goes to mount-utils.
func (m *SyscallMounter) Mount(source, target, fstype string, options []string) error {
	if fstype != "" || !slices.Contains(options, "bind") || len(slices.DeleteFunc(slices.Clone(options), func(o string) bool { return o == "bind" || o == "ro" })) > 0 {
		return m.Interface.Mount(source, target, fstype, options)
	}
	if err := unix.Mount(source, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s at %s: %w", source, target, err)
	}
	if slices.Contains(options, "ro") {
		if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			_ = unix.Unmount(target, 0)
			return fmt.Errorf("making the bind mount at %s read-only: %w", target, err)
		}
	}
	return nil
}

// Unmount unmounts target with umount(2).
func (m *SyscallMounter) Unmount(target string) error {
	if err := unix.Unmount(target, 0); err != nil {
		return fmt.Errorf("unmounting %s: %w", target, err)
	}
	return nil
}
