package warmup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// all opens the Dataset's mount, checks that every target exists, and
// reads the targets' files: the walker (or, with o.Metadata, the list the
// metadata pass made first) hands them to o.Threads readers.
func (r *run) all(o Options) error {
	fsys, closer, err := r.open(o.Root)
	if err != nil {
		return fmt.Errorf("opening the Dataset's mount: %w", err)
	}
	defer closer.Close()
	r.fsys = fsys
	for _, t := range r.targets {
		if _, err := fs.Stat(r.fsys, rel(t)); err != nil {
			return fmt.Errorf("path %q in the Dataset (%s): %w", t, o.Root, unwrapPath(err))
		}
	}
	files := make(chan string, 4*o.Threads)
	var readers sync.WaitGroup
	for range o.Threads {
		readers.Go(func() {
			buf := make([]byte, chunk)
			for name := range files {
				r.read(name, buf)
			}
		})
	}
	defer readers.Wait()
	defer close(files)
	send := func(name string) error {
		select {
		case files <- name:
			return nil
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
	}
	if !o.Metadata {
		return r.walk(func(name string, _ fs.DirEntry) error { return send(name) })
	}
	start := time.Now()
	list, err := r.list()
	if err != nil {
		return err
	}
	r.log.printf("metadata: %d files of %d bytes below %s listed in %s\n", len(list), r.listed.Load(), quoted(r.targets), since(start))
	for _, name := range list {
		if err := send(name); err != nil {
			return err
		}
	}
	return nil
}

// run is one Run's state, shared by the walker and the readers.
type run struct {
	ctx     context.Context
	log     *lockedWriter
	targets []string
	// open opens the Dataset's mount (openRoot; tests give others).
	open func(root string) (fs.FS, io.Closer, error)
	// fsys is the Dataset's mount, set by all.
	fsys fs.FS
	// listed are the bytes the metadata pass found.
	listed                        atomic.Int64
	files, bytes, skipped, failed atomic.Int64
}

func (r *run) summary() Summary {
	return Summary{Files: r.files.Load(), Bytes: r.bytes.Load(), Skipped: r.skipped.Load(), Failed: r.failed.Load()}
}

// walk calls file for every regular file below the targets, in lexical
// order; other entries that are not directories are counted as skipped,
// directories that cannot be listed as failed. It stops at the first
// error file returns, or when the run's context ends.
func (r *run) walk(file func(name string, d fs.DirEntry) error) error {
	for _, t := range r.targets {
		err := fs.WalkDir(r.fsys, rel(t), func(name string, d fs.DirEntry, err error) error {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			switch {
			case err != nil:
				r.failed.Add(1)
				r.log.printf("listing %q: %v\n", "/"+name, unwrapPath(err))
				return nil // WalkDir goes on with the next entry
			case d.IsDir():
				return nil
			case !d.Type().IsRegular():
				r.skipped.Add(1)
				return nil
			}
			return file(name, d)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// list is the metadata pass: every regular file below the targets, each
// stat'ed.
func (r *run) list() ([]string, error) {
	var out []string
	err := r.walk(func(name string, d fs.DirEntry) error {
		info, err := d.Info()
		if err != nil {
			r.failed.Add(1)
			r.log.printf("stat %q: %v\n", "/"+name, unwrapPath(err))
			return nil
		}
		r.listed.Add(info.Size())
		out = append(out, name)
		return nil
	})
	return out, err
}

// read reads one file whole into buf, chunk by chunk, and counts it.
func (r *run) read(name string, buf []byte) {
	n, err := r.readFile(name, buf)
	r.bytes.Add(n)
	switch {
	case err == nil:
		r.files.Add(1)
	case r.ctx.Err() != nil:
		// Run reports the end of the context.
	default:
		r.failed.Add(1)
		r.log.printf("reading %q: %v\n", "/"+name, unwrapPath(err))
	}
}

func (r *run) readFile(name string, buf []byte) (int64, error) {
	f, err := r.fsys.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total int64
	for {
		if err := r.ctx.Err(); err != nil {
			return total, err
		}
		n, err := f.Read(buf)
		total += int64(n)
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// unwrapPath drops the *fs.PathError around err: the caller names the
// Dataset path, which the error's own (relative) path would not.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// quoted lists the targets, each quoted.
func quoted(targets []string) string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = strconv.Quote(t)
	}
	return strings.Join(out, ", ")
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// lockedWriter serialises the lines of the walker and the readers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = fmt.Fprintf(l.w, format, args...)
}
