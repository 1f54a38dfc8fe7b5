package csi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// openat2 is unix.Openat2; tests replace it to play a kernel without it.
var openat2 = unix.Openat2

// beneath is how every component below the FUSE root is resolved: never
// above the directory the walk starts from, and through no symbolic link
// (nor /proc magic link) at all.
const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openSource opens, as an O_PATH directory, what NodePublishVolume (and
// recovery) bind-mounts: fluidPath, a directory below root, and the
// sub-path sub below it (audit N2). Both are resolved by openat2(2) from
// an open root with no symbolic link followed, so the FUSE program, whose
// tree it is, cannot make the walk leave it: not with a link in place, nor
// by swapping a directory for a link while the plugin works. The caller
// bind-mounts the returned file itself (Mounter.BindDir), not its path
// walked again. A kernel without openat2 (before Linux 5.6) fails closed.
// Errors are *sourceError; a missing component satisfies
// errors.Is(err, fs.ErrNotExist).
func openSource(root, fluidPath, sub string) (*os.File, error) {
	rel, err := filepath.Rel(root, fluidPath)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, &sourceError{Part: "fluid_path", Path: fluidPath, Err: unix.EXDEV}
	}
	rootFd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &sourceError{Part: "FUSE root", Path: root, Err: err}
	}
	defer unix.Close(rootFd)
	fluidFd, err := openBeneath(rootFd, rel)
	if err != nil {
		return nil, &sourceError{Part: "fluid_path", Path: fluidPath, Err: err}
	}
	sub = cleanSubPath(sub)
	if sub == "" {
		return os.NewFile(uintptr(fluidFd), fluidPath), nil
	}
	defer unix.Close(fluidFd)
	fd, err := openBeneath(fluidFd, sub)
	if err != nil {
		return nil, &sourceError{Part: "sub-path", Path: sub, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(fluidPath, sub)), nil
}

// openBeneath opens the directory rel below dirFd with openat2(2), O_PATH,
// following no symbolic link. EAGAIN (a rename raced a lookup) is retried.
func openBeneath(dirFd int, rel string) (int, error) {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: beneath}
	for range 8 {
		fd, err := openat2(dirFd, rel, how)
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
	return -1, unix.EAGAIN
}

// cleanSubPath is a dataset's sub-path relative and clean: "" for none,
// never with a ".." component.
func cleanSubPath(sub string) string {
	return strings.TrimPrefix(filepath.Clean("/"+sub), "/")
}

// subPathOf is the sub-path of a recorded publish: its source relative to
// its fluid_path.
func subPathOf(p published) (string, error) {
	rel, err := filepath.Rel(p.FluidPath, p.Source)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("the recorded source %s is not below its fluid_path %s", p.Source, p.FluidPath)
	}
	if rel == "." {
		return "", nil
	}
	return rel, nil
}

// sourceError is why a dataset's directory could not be opened: which part
// of it (fluid_path, sub-path, FUSE root), the path, and the errno.
type sourceError struct {
	Part string
	Path string
	Err  error
}

func (e *sourceError) Unwrap() error { return e.Err }

func (e *sourceError) Error() string {
	switch {
	case errors.Is(e.Err, unix.ENOSYS):
		return fmt.Sprintf("opening the dataset's %s %s: this node's kernel has no openat2(2) (Linux 5.6 or later), "+
			"which Sluice needs to open a dataset's directory without following symbolic links; it refuses to mount without it", e.Part, e.Path)
	case errors.Is(e.Err, unix.ELOOP), errors.Is(e.Err, unix.EXDEV):
		return fmt.Sprintf("the dataset's %s %s is, or passes through, a symbolic link (or leads out of the FUSE mount): "+
			"Sluice follows no symbolic link in a dataset's path, so that the FUSE file system cannot point the mount at the node's files", e.Part, e.Path)
	case errors.Is(e.Err, unix.ENOENT):
		return fmt.Sprintf("the dataset's %s %s is not there", e.Part, e.Path)
	case errors.Is(e.Err, unix.ENOTDIR):
		return fmt.Sprintf("the dataset's %s %s is not a directory", e.Part, e.Path)
	}
	return fmt.Sprintf("opening the dataset's %s %s: %v", e.Part, e.Path, e.Err)
}

// sourceStatus is the gRPC status of an openSource error: FailedPrecondition
// for what the dataset or the node must change (a link, a missing or
// non-directory component, a kernel without openat2), Internal otherwise.
func sourceStatus(volumeID string, err error) error {
	code := codes.Internal
	for _, e := range []error{unix.ENOSYS, unix.ELOOP, unix.EXDEV, unix.ENOENT, unix.ENOTDIR} {
		if errors.Is(err, e) {
			code = codes.FailedPrecondition
		}
	}
	return status.Errorf(code, "NodePublishVolume: volume %s: %v", volumeID, err)
}
