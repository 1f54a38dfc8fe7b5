package ufsmeta

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sluice-data/sluice/engines"
)

// readBatch is how many entries of a directory are read at once: a
// directory of millions of files is never held in memory whole.
const readBatch = 1024

// Count walks the tree under root and returns the number of its regular
// files and the sum of their sizes, as Fluid's `alluxio fs count` and
// `ls -lR | grep ^-` count them: directories, links (never followed) and
// other special files are not counted. A file or directory that disappears
// while the walk reads it is skipped (a Dataset may change under a walk);
// any other error, such as a directory it may not read, stops the walk and
// names the path, because a partial count would be reported as the whole.
// The walk stops when ctx ends.
func Count(ctx context.Context, root string) (engines.UFSUsage, error) {
	w := &walker{ctx: ctx}
	info, err := os.Stat(root)
	if err != nil {
		return engines.UFSUsage{}, err
	}
	if !info.IsDir() {
		return engines.UFSUsage{}, fmt.Errorf("%s is not a directory", root)
	}
	if err := w.dir(root, true); err != nil {
		return engines.UFSUsage{}, err
	}
	return w.usage, nil
}

type walker struct {
	ctx   context.Context
	usage engines.UFSUsage
}

// dir counts the directory at path and, depth first, those below it.
func (w *walker) dir(path string, root bool) error {
	f, err := os.Open(path)
	if err != nil {
		if !root && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		entries, readErr := f.ReadDir(readBatch)
		for _, e := range entries {
			if err := w.entry(filepath.Join(path, e.Name()), e); err != nil {
				return err
			}
		}
		switch {
		case errors.Is(readErr, io.EOF):
			return nil
		case readErr != nil && !(errors.Is(readErr, fs.ErrNotExist) && !root):
			return fmt.Errorf("reading directory %s: %w", path, readErr)
		case readErr != nil:
			return nil
		}
	}
}

// entry counts one directory entry.
func (w *walker) entry(path string, e fs.DirEntry) error {
	switch t := e.Type(); {
	case t.IsDir():
		return w.dir(path, false)
	case t.IsRegular():
		info, err := e.Info()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		}
		w.usage.Bytes += info.Size()
		w.usage.Files++
	}
	return nil
}
