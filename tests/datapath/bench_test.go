package datapath_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchSize is the size of the file each read reads.
const benchSize = 4 << 20

// coldFiles counts the files the cold reads wrote, over every run.
var coldFiles int

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
	cold := startDataPath(b, map[string][]byte{"keep.txt": []byte("x")}, func(s *sample) {
		if s.Runtime.Spec.Fuse.Options == nil {
			s.Runtime.Spec.Fuse.Options = map[string]string{}
		}
		s.Runtime.Spec.Fuse.Options["dir-cache-time"] = "0s"
	})
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
