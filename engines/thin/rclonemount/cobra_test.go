package rclonemount_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines/thin/rclonemount"
)

// TestCommandRefusesBeforeRunning: arguments before -- and a config that
// cannot be read fail with the reason, before rclone is looked for.
func TestCommandRefusesBeforeRunning(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"argument before --": {[]string{"--config", "x", "--vfs-cache-mode=full"}, "unknown flag: --vfs-cache-mode"},
		"positional":         {[]string{"--config", "x", "full"}, `unexpected argument "full": rclone's flags go after --`},
		"missing config":     {[]string{"--config", filepath.Join(t.TempDir(), "config.json"), "--", "--vfs-cache-mode=full"}, "reading the Thin FUSE config"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := rclonemount.NewCommand()
			cmd.SetArgs(tc.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
