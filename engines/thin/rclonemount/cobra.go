package rclonemount

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sluice-data/sluice/engines/thin"
)

// NewCommand is `sluice rclone-mount --config FILE --secret-root DIR [--rclone PROGRAM] [-- RCLONE FLAGS...]`:
// it builds the rclone command line from the FUSE config, makes the mount
// point and replaces itself with rclone, which then receives the pod's
// signals directly.
func NewCommand() *cobra.Command {
	var config, secretRoot, program string
	cmd := &cobra.Command{
		Use:   "rclone-mount --config FILE --secret-root DIR [-- RCLONE FLAGS...]",
		Short: "Mount a Thin Dataset's s3:// bucket with rclone mount2 (the FUSE program of the rclone ThinRuntimeProfile)",
		Long: "Reads the Thin FUSE config (mounts, target path, fuse options, Secret files) and runs\n" +
			"rclone mount2 :s3:<bucket>[/<prefix>] <targetPath> with the flags after --, then the\n" +
			"mount's options as --s3-<name> flags and the runtime's fuse options as --<name> flags;\n" +
			"access_key_id, secret_access_key and session_token come from their Secret files\n" +
			"through rclone's environment.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
				return fmt.Errorf("unexpected argument %q: rclone's flags go after --", args[0])
			}
			cfg, err := Load(config)
			if err != nil {
				return err
			}
			c, err := Build(cfg, secretRoot, args, os.ReadFile)
			if err != nil {
				return fmt.Errorf("%s: %w", config, err)
			}
			// The chart mounts the target's parent from the node; the
			// program makes the mount point in it, as rclone does not.
			if err := os.MkdirAll(cfg.TargetPath, 0o755); err != nil {
				return fmt.Errorf("making the mount point: %w", err)
			}
			bin, err := exec.LookPath(program)
			if err != nil {
				return fmt.Errorf("finding rclone: %w", err)
			}
			err = syscall.Exec(bin, append([]string{program}, c.Args...), append(os.Environ(), c.Env...))
			return errors.Join(fmt.Errorf("running %s", bin), err)
		},
	}
	cmd.Flags().StringVar(&config, "config", thin.ConfigPath, "the Thin FUSE config")
	cmd.Flags().StringVar(&secretRoot, "secret-root", thin.SecretRoot, "where the Secrets of encrypt options are mounted (the config names files under it)")
	cmd.Flags().StringVar(&program, "rclone", "rclone", "the rclone program (a name is looked up in PATH)")
	return cmd
}
