package fusefs

import (
	"context"
	"fmt"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FsName is the file-system type suffix: mountinfo shows fuse.sluicetest.
const FsName = "sluicetest"

// Contents are the files of the file system.
var Contents = map[string]string{
	"hello.txt":      "hello from the dataset\n",
	"train/data.txt": "training data\n",
}

type root struct{ fs.Inode }

var _ fs.NodeOnAdder = (*root)(nil)

func (r *root) OnAdd(ctx context.Context) {
	for path, content := range Contents {
		parent := &r.Inode
		dir, name := splitPath(path)
		if dir != "" {
			child := parent.GetChild(dir)
			if child == nil {
				child = parent.NewPersistentInode(ctx, &fs.Inode{}, fs.StableAttr{Mode: syscall.S_IFDIR})
				parent.AddChild(dir, child, true)
			}
			parent = child
		}
		f := parent.NewPersistentInode(ctx, &fs.MemRegularFile{Data: []byte(content), Attr: fuse.Attr{Mode: 0o444}}, fs.StableAttr{})
		parent.AddChild(name, f, true)
	}
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
