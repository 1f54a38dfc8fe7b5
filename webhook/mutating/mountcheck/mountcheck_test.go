package mountcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mountinfo is a mount table with a FUSE mount at a path holding a space,
// a FUSE mount without optional fields, and a plain directory mount.
const mountinfo = `22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
36 22 0:40 / /runtime-mnt/juicefs/ns/ds/juicefs-fuse rw,relatime shared:20 master:3 - fuse.juicefs JuiceFS:ds rw,user_id=0
37 22 0:41 / /mnt/with\040space rw,relatime - fuse sshfs rw
38 22 0:42 / /plain rw,relatime shared:9 - tmpfs fuse.lookalike rw
39 22 0:43 / /blk rw - fuseblk /dev/sdb1 rw
`

// run runs the command's script as sh would, reading table instead of
// /proc/self/mountinfo.
func run(t *testing.T, shell, table string, argv []string) (int, string) {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s: %v", shell, err)
	}
	f := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(f, []byte(table), 0o600); err != nil {
		t.Fatal(err)
	}
	if argv[0] != "sh" || argv[1] != "-c" || argv[3] != Name {
		t.Fatalf("argv = %q", argv)
	}
	args := append([]string{"-c", strings.ReplaceAll(argv[2], "/proc/self/mountinfo", f)}, argv[3:]...)
	out, err := exec.Command(shell, args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestCommandWaitsForFUSEMounts(t *testing.T) {
	for _, shell := range []string{"dash", "bash"} {
		t.Run(shell, func(t *testing.T) {
			tests := []struct {
				name  string
				paths []string
				want  int
			}{
				{"fuse type with optional fields", []string{"/runtime-mnt/juicefs/ns/ds/juicefs-fuse"}, 0},
				{"trailing slash is cleaned", []string{"/runtime-mnt/juicefs/ns/ds/juicefs-fuse/"}, 0},
				{"escaped space, no optional fields", []string{"/mnt/with space"}, 0},
				{"fuseblk", []string{"/blk"}, 0},
				{"every path must be mounted", []string{"/blk", "/runtime-mnt/juicefs/ns/ds"}, 1},
				{"a mount that is not FUSE", []string{"/plain"}, 1},
				{"the root is not FUSE", []string{"/"}, 1},
				{"a path below a FUSE mount is not its mount point", []string{"/blk/sub"}, 1},
				{"shell words in a path are data", []string{"/x'; exit 0; '"}, 1},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					code, out := run(t, shell, mountinfo, Command(1, tt.paths...))
					if code != tt.want {
						t.Fatalf("exit %d, want %d (%s)", code, tt.want, out)
					}
					if tt.want == 1 && !strings.Contains(out, "is not a mounted FUSE file system") {
						t.Fatalf("no message naming the path: %q", out)
					}
				})
			}
		})
	}
}

func TestCommandRetriesUntilTheMountAppears(t *testing.T) {
	if _, err := exec.LookPath("dash"); err != nil {
		t.Skip(err)
	}
	f := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(f, []byte("22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	argv := Command(5, "/blk")
	cmd := exec.Command("dash", append([]string{"-c", strings.ReplaceAll(argv[2], "/proc/self/mountinfo", f)}, argv[3:]...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(mountinfo), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the check did not see the mount that appeared: %v", err)
	}
}

func TestCommandKeepsPathsOutOfTheScript(t *testing.T) {
	argv := Command(0, "/a b", `/c\d`)
	if argv[2] != script || argv[4] != "1" || argv[5] != `/a\040b` || argv[6] != `/c\134d` {
		t.Fatalf("argv = %q", argv)
	}
}
