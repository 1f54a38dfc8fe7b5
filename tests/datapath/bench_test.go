package datapath_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// benchSize is the size of the file each read reads.
const benchSize = 4 << 20

// coldFiles counts the files the cold reads wrote, over every run, and
// loadDirs the directories the warm-ups read.
var coldFiles, loadDirs int

// loadFiles is how many files of benchSize one warm-up reads.
const loadFiles = 8

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
// through a link of that name), against the rclone sample's FUSE mount,
// its target a new directory of 8 files of 4 MiB (written before and
// removed after, timer stopped; the mount runs with dir-cache-time: 0s to
// see it): every run lists the directory, stats and fetches the files from
// S3 into the VFS cache, and is checked to have read them all. The time
// includes starting the process. threads-1 reads one file at a time,
// threads-4 (warmup's default) four.
//
// Run it with a fixed count: go test ./tests/datapath -run '^$' -bench Warmup -benchtime 10x
func BenchmarkWarmup(b *testing.B) {
	d := startDataPath(b, map[string][]byte{"keep.txt": []byte("x")}, freshListings)
	sampleLoad := loadSampleLoad(b, d.sample.Dataset.Namespace)
	data := random(b, benchSize)
	for _, threads := range []int{1, 4} {
		b.Run(fmt.Sprintf("threads-%d", threads), func(b *testing.B) {
			b.SetBytes(loadFiles * benchSize)
			for b.Loop() {
				b.StopTimer()
				loadDirs++
				dir := fmt.Sprintf("load-%d", loadDirs)
				for i := range loadFiles {
					write(b, filepath.Join(d.served, dir, fmt.Sprintf("%d.bin", i)), string(data))
				}
				dl := sampleLoad.DeepCopy()
				dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "/" + dir}}
				dl.Spec.Options["threads"] = strconv.Itoa(threads)
				c, _ := loadContainer(b, d.sample, dl)
				gets := d.s3.ObjectGets()
				b.StartTimer()
				_, out := runLoad(b, d.tools, c, d.fuse)
				b.StopTimer()
				if want := fmt.Sprintf("read %d files, %d bytes", loadFiles, loadFiles*benchSize); !strings.Contains(out, want) {
					b.Fatalf("the warm-up did not say %q:\n%s", want, out)
				}
				if g := d.s3.ObjectGets() - gets; g < loadFiles {
					b.Fatalf("the warm-up of %d new files fetched %d objects from S3", loadFiles, g)
				}
				if err := os.RemoveAll(filepath.Join(d.served, dir)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
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
