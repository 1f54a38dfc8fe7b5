package fusefs

import (
	"context"
	"fmt"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FsName is the file-system type suffix: mountinfo shows fuse.sluicetest.
const FsName = "sluicetest"

// Contents are the files of the file system.
var Contents = map[string]string{
	"hello.txt":             "hello from the dataset\n",
	"train/data.txt":        "training data\n",
	"train/2024/part-0.txt": "the 2024 part\n",
}

// Symlinks are its symbolic links, path to target: one that stays inside
// the file system (train/latest, to 2024) and one that leads out of it
// (escape, to the node's /).
var Symlinks = map[string]string{
	"train/latest": "2024",
	"escape":       "/",
}

type root struct{ fs.Inode }

var _ fs.NodeOnAdder = (*root)(nil)

func (r *root) OnAdd(ctx context.Context) {
	for p, content := range Contents {
		dir, name := splitPath(p)
		parent := r.dir(ctx, dir)
		f := parent.NewPersistentInode(ctx, &fs.MemRegularFile{Data: []byte(content), Attr: fuse.Attr{Mode: 0o444}}, fs.StableAttr{})
		parent.AddChild(name, f, true)
	}
	for p, target := range Symlinks {
		dir, name := splitPath(p)
		parent := r.dir(ctx, dir)
		l := parent.NewPersistentInode(ctx, &fs.MemSymlink{Data: []byte(target)}, fs.StableAttr{Mode: syscall.S_IFLNK})
		parent.AddChild(name, l, true)
	}
}

// dir returns the directory at path (relative, "" for the root), making
// the directories it lacks.
func (r *root) dir(ctx context.Context, path string) *fs.Inode {
	parent := &r.Inode
	if path == "" {
		return parent
	}
	for _, seg := range strings.Split(path, "/") {
		child := parent.GetChild(seg)
		if child == nil {
			child = parent.NewPersistentInode(ctx, &fs.Inode{}, fs.StableAttr{Mode: syscall.S_IFDIR})
			parent.AddChild(seg, child, true)
		}
		parent = child
	}
	return parent
}

func splitPath(p string) (string, string) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i], p[i+1:]
		}
	}
	return "", p
}

// Mount mounts the file system at dir (which must exist) and returns the
// server; Unmount it when done. It needs root (direct mount, no fusermount).
func Mount(dir string) (*fuse.Server, error) {
	srv, err := fs.Mount(dir, &root{}, &fs.Options{MountOptions: fuse.MountOptions{
		FsName: FsName, Name: FsName, DirectMount: true, AllowOther: true,
	}})
	if err != nil {
		return nil, fmt.Errorf("mounting the test FUSE file system at %s: %w", dir, err)
	}
	return srv, nil
}
