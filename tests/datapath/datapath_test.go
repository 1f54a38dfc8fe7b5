package datapath_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// readTimeout bounds one read: a cached file or one from S3 on loopback
// takes well under a second.
const readTimeout = 30 * time.Second

// bucketDir is the sample's bucket and prefix (s3://photos/2024) under the
// served directory.
const bucketDir = "photos/2024"

// dataPath is the sample running on this machine: the served directory,
// the S3 server, the FUSE pod and its mount.
type dataPath struct {
	tools  tools
	served string // the bucket's prefix directory
	s3     *s3Server
	sample sample
	r      rendered
	pod    *pod
	fuse   string // the FUSE mount (the Dataset's root)
}

// startDataPath serves files over S3 and mounts them with the FUSE
// command line the chart renders for the sample (edited by edit).
func startDataPath(tb testing.TB, files map[string][]byte, edit func(*sample)) *dataPath {
	tb.Helper()
	t := requireDataPath(tb)
	root := tb.TempDir()
	// Runs after every other cleanup: a mount an interrupted read kept
	// busy (the Pod's bind mount) is detached before the temp dirs go.
	tb.Cleanup(func() { detachUnder(filepath.Dir(root)) })
	d := &dataPath{tools: t, served: filepath.Join(root, bucketDir)}
	for name, data := range files {
		write(tb, filepath.Join(d.served, name), string(data))
	}
	d.s3 = serveS3(tb, t, root)
	d.sample = loadSample(tb, namespace(tb), d.s3.Endpoint)
	if edit != nil {
		edit(&d.sample)
	}
	d.sample.create(tb)
	d.r = render(tb, d.sample)
	d.pod = startFuse(tb, t, d.sample, d.r)
	d.fuse = d.pod.Path(d.r.Volume.Path)
	return d
}

// TestRcloneDataPath: the rclone sample's FUSE command line, as the Thin
// chart renders it, mounts a bucket of `rclone serve s3`; the CSI plugin
// publishes the mount to a Pod's target path, where a reader gets the
// bucket's bytes. The sample DataLoad's command line, as the Thin engine
// renders its Job, run against the path the CSI plugin publishes for the
// load pod, fetches the target files from S3 into rclone's VFS cache (and
// nothing else); after it the reader gets the same bytes with the S3
// server offline and no object fetched again.
func TestRcloneDataPath(t *testing.T) {
	files := map[string][]byte{
		"hello.txt":            []byte("hello from the bucket\n"),
		"january/shard.bin":    random(t, 3<<20+17),
		"february/a b.bin":     random(t, 64<<10),
		"march/not-loaded.bin": random(t, 1000),
	}
	loaded := []string{"february/a b.bin", "january/shard.bin"} // below the sample DataLoad's targets
	d := startDataPath(t, files, nil)

	// The command line is the sample's, with the pod's paths moved under
	// its root and nothing else changed.
	want := []string{"sluice", "rclone-mount", "--config=" + d.pod.Path("/etc/fluid/config/config.json"), "--secret-root=" + d.pod.Path("/etc/fluid/secrets"), "--",
		"--vfs-cache-mode=full", "--cache-dir=" + d.pod.Path("/var/cache/rclone"), "--allow-other"}
	if !slices.Equal(d.pod.Argv, want) {
		t.Errorf("FUSE command line %q, want %q", d.pod.Argv, want)
	}

	volume := stage(t, startCSI(t), pvOf(t, d.sample, d.r, d.pod))
	target := volume.publish(t, "reader", false)

	// Cold: the Pod reads one file; it is fetched from S3.
	before := d.s3.ObjectGets()
	readEqual(t, target, "hello.txt", files)
	if d.s3.ObjectGets() == before {
		t.Errorf("a cold read fetched no object from S3 (%d requests in all)", d.s3.Requests())
	}
	if err := os.WriteFile(filepath.Join(target, "new.txt"), []byte("x"), 0o644); err == nil {
		t.Error("a ReadOnlyMany Dataset accepted a write through the Pod's path")
	}

	// The sample DataLoad, run as its Job's container would run it: the
	// CSI plugin publishes the Dataset's claim (read-only) to the load pod.
	dl := loadSampleLoad(t, d.sample.Dataset.Namespace)
	if got := targetPaths(dl); !slices.Equal(got, []string{"/january", "/february"}) {
		t.Fatalf("the sample DataLoad's targets are %q; this test's files are laid out for /january and /february", got)
	}
	c, claim := loadContainer(t, d.sample, dl)
	if claim != d.sample.Dataset.Name || c.Image != sluiceImage {
		t.Errorf("the load pod mounts claim %q in image %s, want the Dataset's claim %q in %s", claim, c.Image, d.sample.Dataset.Name, sluiceImage)
	}
	gets := d.s3.ObjectGets()
	argv, out := runLoad(t, d.tools, c, volume.publish(t, "load", true))
	t.Logf("%q:\n%s", argv, out)
	for _, line := range []string{`metadata: 2 files of 3211281 bytes below "/january", "/february"`, `read 2 files, 3211281 bytes, below "/january", "/february"`} {
		if !strings.Contains(out, line) {
			t.Errorf("the load's output does not say %q", line)
		}
	}
	if d.s3.ObjectGets() == gets {
		t.Error("the load fetched no object from S3")
	}
	cached := cacheFiles(t, d.pod.Path("/var/cache/rclone"), files)
	if want := append([]string{"hello.txt"}, loaded...); !slices.Equal(cached, slices.Sorted(slices.Values(want))) {
		t.Errorf("rclone's VFS cache (%s) holds the bytes of %v, want the loaded %v and the file read before, %v", d.pod.Path("/var/cache/rclone"), cached, loaded, "hello.txt")
	}

	// Warm: with S3 offline, the Pod reads every loaded file (and the one
	// it read before) from the cache.
	gets, requests := d.s3.ObjectGets(), d.s3.Requests()
	d.s3.Offline(true)
	for _, name := range append([]string{"hello.txt"}, loaded...) {
		readEqual(t, target, name, files)
	}
	if g := d.s3.ObjectGets(); g != gets {
		t.Errorf("warm reads fetched %d objects", g-gets)
	}
	t.Logf("warm reads with S3 offline: %d requests reached the proxy, none for an object", d.s3.Requests()-requests)
}

// targetPaths are a DataLoad's target paths.
func targetPaths(dl *datav1alpha1.DataLoad) []string {
	var out []string
	for _, t := range dl.Spec.Target {
		out = append(out, t.Path)
	}
	return out
}

// TestRcloneRefusesWhatItCannotHonour: the FUSE program does not start
// when the Dataset names an S3 option rclone does not have (rclone refuses
// the flag) or an encrypt option the program does not read; the pod's log
// says which.
func TestRcloneRefusesWhatItCannotHonour(t *testing.T) {
	tl := requireDataPath(t)
	s3 := serveS3(t, tl, t.TempDir())
	for name, tc := range map[string]struct {
		edit func(*sample)
		want string
	}{
		"unknown S3 option":   {func(s *sample) { s.Dataset.Spec.Mounts[0].Options["no_such_option"] = "1" }, "unknown flag: --s3-no-such-option"},
		"unknown fuse option": {func(s *sample) { s.Runtime.Spec.Fuse.Options["vfs-cache-size-max"] = "1G" }, "unknown flag: --vfs-cache-size-max"},
		"other encrypt option": {func(s *sample) {
			s.Dataset.Spec.Mounts[0].EncryptOptions[1].Name = "sse_customer_key"
		}, `encrypt option "sse_customer_key": the rclone profile reads only access_key_id, secret_access_key, session_token`},
	} {
		t.Run(name, func(t *testing.T) {
			s := loadSample(t, namespace(t), s3.Endpoint)
			tc.edit(&s)
			s.create(t)
			out := fuseFails(t, tl, s, render(t, s))
			if !strings.Contains(out, tc.want) {
				t.Errorf("the FUSE pod's output does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// readEqual reads name through dir and compares it with the served bytes.
// A read that S3 cannot serve fails only after rclone's retries (minutes):
// the test gives up after readTimeout (the cleanup's SIGTERM to rclone then
// ends the read).
func readEqual(t *testing.T, dir, name string, files map[string][]byte) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := os.ReadFile(filepath.Join(dir, name))
		done <- result{data, err}
	}()
	var got []byte
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("reading %s through %s: %v", name, dir, r.err)
		}
		got = r.data
	case <-time.After(readTimeout):
		t.Fatalf("reading %s through %s: no answer in %s", name, dir, readTimeout)
	}
	if !bytes.Equal(got, files[name]) {
		t.Fatalf("%s through %s: %d bytes differing from the %d served", name, dir, len(got), len(files[name]))
	}
}

// cacheFiles lists the served files whose whole bytes are in a file of
// rclone's VFS cache directory (cache-dir/vfs/<remote>/<path>).
func cacheFiles(t *testing.T, cacheDir string, files map[string][]byte) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(filepath.Join(cacheDir, "vfs"), func(p string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(cacheDir, "vfs") {
			return nil // no cache at all
		}
		if err != nil || e.IsDir() {
			return err
		}
		for name, data := range files {
			if strings.HasSuffix(p, "/"+bucketDir+"/"+name) {
				if got, err := os.ReadFile(p); err == nil && bytes.Equal(got, data) {
					found = append(found, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading rclone's cache directory: %v", err)
	}
	slices.Sort(found)
	return found
}

func random(tb testing.TB, n int) []byte {
	tb.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return b
}
