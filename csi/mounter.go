package csi

import (
	"fmt"
	"os"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"
	mount "k8s.io/mount-utils"
)

// Mounter is mount-utils' interface plus bind mounts of open directories,
// which is how NodePublishVolume and recovery mount a dataset (audit N2).
type Mounter interface {
	mount.Interface
	// BindDir bind-mounts dir, a directory opened with O_PATH, at target,
	// read-only when asked. The mount takes dir itself (through
	// /proc/self/fd in this process), never a path walked again, so it
	// must be done by this process, not by a mount program it runs.
	BindDir(dir *os.File, target string, readOnly bool) error
}

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

// BindDir implements Mounter with mount(2) in this process: the source
// /proc/self/fd/<n> is the magic link of dir, which the kernel follows to
// dir's own dentry and mount, walking no path of the dataset again.
func (m *SyscallMounter) BindDir(dir *os.File, target string, readOnly bool) error {
	source := fmt.Sprintf("/proc/self/fd/%d", dir.Fd())
	err := unix.Mount(source, target, "", unix.MS_BIND, "")
	runtime.KeepAlive(dir)
	if err != nil {
		return fmt.Errorf("bind-mounting %s at %s: %w", dir.Name(), target, err)
	}
	if readOnly {
		if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			_ = unix.Unmount(target, 0)
			return fmt.Errorf("making the bind mount at %s read-only: %w", target, err)
		}
	}
	return nil
}
