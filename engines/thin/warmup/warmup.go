package warmup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Options say what the program reads, and how.
type Options struct {
	// Root is the Dataset's mount; Paths are Dataset paths below it.
	Root string
	// Paths are the Dataset paths to read ("/" is the whole Dataset): a
	// file is read, a directory is read recursively.
	Paths []string
	// Threads is how many files are read at once, 1 to MaxThreads.
	Threads int
	// Metadata lists and stats every entry below every path before any
	// file is read (a DataLoad's loadMetadata), and logs the totals.
	Metadata bool
	// Progress, when positive, is how often a progress line is logged.
	Progress time.Duration
	// Log receives the progress and summary lines and one line for each
	// file or directory that could not be read.
	Log io.Writer
}

// MaxThreads bounds Options.Threads.
const MaxThreads = 256

// chunk is the size of one read: large enough that a FUSE program sees
// few requests, small enough that a cancelled load stops soon.
const chunk = 1 << 20

// Summary is what one run read.
type Summary struct {
	// Files and Bytes are the files read whole and their bytes.
	Files, Bytes int64
	// Skipped are the entries that are neither regular files nor
	// directories (symbolic links, devices, pipes, sockets): not read.
	Skipped int64
	// Failed are the files and directories that could not be read.
	Failed int64
}

// Run reads every regular file at or below each of o.Paths inside o.Root,
// each file whole, o.Threads files at once, without following symbolic
// links. Every path must exist before anything is read. A file or
// directory that cannot be read is logged and the others are still read;
// Run then fails, saying how many. When ctx ends Run returns at once with
// ctx's error, even while a read is blocked in the file system.
func Run(ctx context.Context, o Options) (Summary, error) { return runWith(ctx, o, openRoot) }

// runWith is Run with the Dataset's mount opened by open.
func runWith(ctx context.Context, o Options, open func(string) (fs.FS, io.Closer, error)) (Summary, error) {
	if o.Threads < 1 || o.Threads > MaxThreads {
		return Summary{}, fmt.Errorf("threads is %d: read 1 to %d files at once", o.Threads, MaxThreads)
	}
	if len(o.Paths) == 0 {
		return Summary{}, errors.New("no path to read; / is the whole Dataset")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	targets, err := Targets(o.Paths)
	if err != nil {
		return Summary{}, err
	}
	r := &run{ctx: ctx, log: &lockedWriter{w: o.Log}, targets: targets, open: open}
	start := time.Now()
	result := make(chan error, 1)
	go func() { result <- r.all(o) }()
	var tick <-chan time.Time
	if o.Progress > 0 {
		t := time.NewTicker(o.Progress)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case err := <-result:
			s := r.summary()
			if ctx.Err() != nil {
				return s, stopped(start, s, ctx.Err())
			}
			if err != nil {
				return s, err
			}
			r.log.printf("read %d files, %d bytes, below %s in %s with %d threads; %d entries skipped (not regular files), %d failed\n",
				s.Files, s.Bytes, quoted(targets), since(start), o.Threads, s.Skipped, s.Failed)
			if s.Failed > 0 {
				return s, fmt.Errorf("%d files or directories could not be read (each is logged above)", s.Failed)
			}
			return s, nil
		case <-tick:
			s := r.summary()
			r.log.printf("progress: %d files, %d bytes read in %s\n", s.Files, s.Bytes, since(start))
		case <-ctx.Done():
			s := r.summary()
			return s, stopped(start, s, ctx.Err())
		}
	}
}

// openRoot opens the Dataset's mount as an os.Root: no name, symbolic
// link or ".." inside it resolves to a file outside it.
func openRoot(dir string) (fs.FS, io.Closer, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return root.FS(), root, nil
}

// stopped is Run's error when its context ends first.
func stopped(start time.Time, s Summary, err error) error {
	return fmt.Errorf("stopped after %s with %d files, %d bytes read: %w", since(start), s.Files, s.Bytes, err)
}
