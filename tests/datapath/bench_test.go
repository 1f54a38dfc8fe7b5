package datapath_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// benchSize is the size of the file each read reads.
const benchSize = 4 << 20

// coldFiles counts the files the cold reads wrote, over every run.
var coldFiles int

// One warm-up reads loadFiles files of benchSize, a directory of its own;
// a bucket holds loadDirs of them.
const (
	loadFiles = 8
	loadDirs  = 20
)

// freshListings is the edit of the sample that makes its mount list a
// directory again at each lookup (runtime option dir-cache-time: 0s), so
// that it sees files written just before.
func freshListings(s *sample) {
	if s.Runtime.Spec.Fuse.Options == nil {
		s.Runtime.Spec.Fuse.Options = map[string]string{}
	}
	s.Runtime.Spec.Fuse.Options["dir-cache-time"] = "0s"
}

// BenchmarkRead reads a 4 MiB file through the rclone sample's FUSE mount
// (the FUSE command line the chart renders, rclone serve s3 on loopback):
//
//   - cold: a file the mount has never read, written to the bucket just
//     before and removed just after (timer stopped), so every read lists
//     the bucket and fetches the file from S3 into the VFS cache; this
//     mount runs with the runtime option dir-cache-time: 0s so that it sees
//     each new file at once;
//   - warm: the same file again, after a first read filled the cache.
//
// Run it with a fixed count: go test ./tests/datapath -run '^$' -bench Read -benchtime 20x
func BenchmarkRead(b *testing.B) {
	cold := startDataPath(b, map[string][]byte{"keep.txt": []byte("x")}, freshListings)
	warmFile := random(b, benchSize)
	warm := startDataPath(b, map[string][]byte{"warm.bin": warmFile}, nil)
	readAll(b, filepath.Join(warm.fuse, "warm.bin"))

	b.Run("cold", func(b *testing.B) {
		b.SetBytes(benchSize)
		data := random(b, benchSize)
		for b.Loop() {
			b.StopTimer()
			coldFiles++
			name := fmt.Sprintf("cold-%d.bin", coldFiles)
			write(b, filepath.Join(cold.served, name), string(data))
			gets := cold.s3.ObjectGets()
			b.StartTimer()
			readAll(b, filepath.Join(cold.fuse, name))
			b.StopTimer()
			if cold.s3.ObjectGets() == gets {
				b.Fatalf("the cold read of %s fetched nothing from S3", name)
			}
			// The bucket's listing, read at each lookup, stays one file long.
			if err := os.Remove(filepath.Join(cold.served, name)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.SetBytes(benchSize)
		gets := warm.s3.ObjectGets()
		for b.Loop() {
			readAll(b, filepath.Join(warm.fuse, "warm.bin"))
		}
		b.StopTimer()
		if g := warm.s3.ObjectGets(); g != gets {
			b.Fatalf("warm reads fetched %d objects from S3", g-gets)
		}
	})
}

// BenchmarkWarmup runs the sample DataLoad's command line, as the Thin
// engine renders its Job's container (`sluice warmup`, this test binary
// through a link of that name), against the rclone sample's FUSE mount
// with its default directory cache. Each sub-benchmark serves and mounts a
// bucket of its own holding loadDirs directories of 8 files of 4 MiB, and
// each iteration loads the next directory, never read before: the run
// lists it, stats its files and fetches them from S3 into the VFS cache,
// and is checked to have read them all. The time per op includes starting
// the process (the sluice binary, like the pod's); read-ms/op is the time
// the command itself says it took to list and read. threads-1 reads one
// file at a time, threads-4 (warmup's default) four.
//
// Run it with a fixed count of at most loadDirs:
// go test ./tests/datapath -run '^$' -bench Warmup -benchtime 10x
func BenchmarkWarmup(b *testing.B) {
	data := random(b, benchSize)
	files := map[string][]byte{}
	for dir := range loadDirs {
		for i := range loadFiles {
			files[fmt.Sprintf("load-%d/%d.bin", dir, i)] = data
		}
	}
	for _, threads := range []int{1, 4} {
		b.Run(fmt.Sprintf("threads-%d", threads), func(b *testing.B) {
			d := startDataPath(b, files, nil)
			sampleLoad := loadSampleLoad(b, d.sample.Dataset.Namespace)
			b.SetBytes(loadFiles * benchSize)
			var reading time.Duration
			next := 0
			for b.Loop() {
				b.StopTimer()
				if next == loadDirs {
					b.Fatalf("more than %d iterations: run with a fixed -benchtime of at most %dx", loadDirs, loadDirs)
				}
				dl := sampleLoad.DeepCopy()
				dl.Spec.Target = []datav1alpha1.TargetPath{{Path: fmt.Sprintf("/load-%d", next)}}
				dl.Spec.Options["threads"] = strconv.Itoa(threads)
				next++
				c, _ := loadContainer(b, d.sample, dl)
				gets := d.s3.ObjectGets()
				b.StartTimer()
				_, out := runLoad(b, d.tools, c, d.fuse)
				b.StopTimer()
				if want := fmt.Sprintf("read %d files, %d bytes", loadFiles, loadFiles*benchSize); !strings.Contains(out, want) {
					b.Fatalf("the warm-up did not say %q:\n%s", want, out)
				}
				reading += readTime(b, out)
				if g := d.s3.ObjectGets() - gets; g < loadFiles {
					b.Fatalf("the warm-up of %d files never read fetched %d objects from S3", loadFiles, g)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(reading.Microseconds())/1e3/float64(b.N), "read-ms/op")
		})
	}
}

// readDuration is the time warmup's summary line says it spent, after
// starting, listing and reading.
var readDuration = regexp.MustCompile(`^read .* below .* in (\S+) with [0-9]+ threads;`)

// readTime is the time the warm-up's output says it read for.
func readTime(b *testing.B, out string) time.Duration {
	m := readDuration.FindStringSubmatch(lastLine(out))
	if m == nil {
		b.Fatalf("no read time in the warm-up's output:\n%s", out)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// readAll reads the whole file, failing unless it is benchSize bytes.
func readAll(b *testing.B, file string) {
	f, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err != nil || n != benchSize {
		b.Fatalf("reading %s: %d bytes, %v", file, n, err)
	}
}
