package warmup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// faultFS is a Dataset whose named files fail or block when read, and
// whose named directories cannot be listed.
type faultFS struct {
	fstest.MapFS
	failRead, blockRead, failList string
	// blocked closes when a read blocks, which then waits for release.
	blocked, release chan struct{}
}

func (f *faultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == f.failList {
		return nil, errors.New("transport endpoint is not connected")
	}
	return f.MapFS.ReadDir(name)
}

func (f *faultFS) Open(name string) (fs.File, error) {
	file, err := f.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	switch name {
	case f.failRead:
		return faultFile{File: file, read: func() error { return errors.New("input/output error") }}, nil
	case f.blockRead:
		return faultFile{File: file, read: func() error {
			close(f.blocked)
			<-f.release
			return errors.New("released")
		}}, nil
	}
	return file, nil
}

type faultFile struct {
	fs.File
	read func() error
}

func (f faultFile) Read([]byte) (int, error) { return 0, f.read() }

func dataset() fstest.MapFS {
	return fstest.MapFS{
		"train/a":     {Data: []byte("aaaa")},
		"train/bad":   {Data: []byte("bbbb")},
		"train/b":     {Data: []byte("bb")},
		"val/lost/c":  {Data: []byte("c")},
		"val/d":       {Data: []byte("dd")},
		"val/stuck/e": {Data: []byte("e")},
	}
}

func opener(fsys fs.FS) func(string) (fs.FS, io.Closer, error) {
	return func(string) (fs.FS, io.Closer, error) { return fsys, io.NopCloser(nil), nil }
}

// TestFailuresAreLoggedAndTheRestRead: a file that cannot be read and a
// directory that cannot be listed are each logged with their Dataset
// path; every other file is still read, and the run fails saying how many
// could not be.
func TestFailuresAreLoggedAndTheRestRead(t *testing.T) {
	fsys := &faultFS{MapFS: dataset(), failRead: "train/bad", failList: "val/lost"}
	for _, metadata := range []bool{false, true} {
		var log bytes.Buffer
		s, err := runWith(context.Background(), Options{Paths: []string{"/"}, Threads: 2, Metadata: metadata, Log: &log}, opener(fsys))
		if err == nil || !strings.Contains(err.Error(), "2 files or directories could not be read") {
			t.Fatalf("metadata %v: %v", metadata, err)
		}
		if want := (Summary{Files: 4, Bytes: 4 + 2 + 2 + 1, Failed: 2}); s != want {
			t.Errorf("metadata %v: %+v, want %+v", metadata, s, want)
		}
		for _, line := range []string{`reading "/train/bad": input/output error`, `listing "/val/lost": transport endpoint is not connected`} {
			if !strings.Contains(log.String(), line) {
				t.Errorf("metadata %v: the log lacks %q:\n%s", metadata, line, log.String())
			}
		}
	}
}

// TestContextEndsARunBlockedInARead: a read that never returns (a FUSE
// program that hangs) does not keep Run from returning when its context
// ends, with what it read so far.
func TestContextEndsARunBlockedInARead(t *testing.T) {
	fsys := &faultFS{MapFS: dataset(), blockRead: "val/stuck/e", blocked: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(fsys.release) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-fsys.blocked
		cancel()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := runWith(ctx, Options{Paths: []string{"/val"}, Threads: 1}, opener(fsys))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after") {
			t.Fatalf("%v, want the context's end", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run still runs a minute after its context ended")
	}
}
