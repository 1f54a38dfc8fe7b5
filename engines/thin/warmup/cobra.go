package warmup

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// The command line the Thin engine renders for a DataLoad:
//
//	sluice warmup --root=<mount> [--threads=<n>] [--timeout=<d>] [--metadata] -- <path>...
const (
	// Command is the subcommand's name.
	Command = "warmup"
	// DefaultRoot is where the load pod mounts the Dataset's PVC.
	DefaultRoot = "/sluice/dataset"
	// DefaultThreads is how many files are read at once unless told.
	DefaultThreads = 4
)

// progressEvery is how often the command logs its progress.
const progressEvery = 30 * time.Second

// NewCommand is `sluice warmup`.
func NewCommand() *cobra.Command {
	o := Options{Root: DefaultRoot, Threads: DefaultThreads, Progress: progressEvery}
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "warmup [--root DIR] [--threads N] [--timeout D] [--metadata] -- PATH...",
		Short: "Read every file below Dataset paths through the Dataset's mount (the command of a Thin DataLoad)",
		Long: "Reads every regular file at or below each PATH (a path in the Dataset, / for all of it)\n" +
			"inside --root, the Dataset's mount, so that the FUSE program serving it caches them on\n" +
			"this node. Symbolic links are not followed and no path leaves --root. Every PATH must\n" +
			"exist; a file that cannot be read is logged, the others are read, and the command fails.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 {
				return fmt.Errorf("the paths go after --, as in: sluice warmup --root=%s -- /train", o.Root)
			}
			if timeout < 0 {
				return fmt.Errorf("--timeout %s: a duration of 0 (no limit) or more", timeout)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			o.Paths, o.Log = args, cmd.OutOrStdout()
			_, err := Run(ctx, o)
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Root, "root", o.Root, "the Dataset's mount; the paths are below it")
	fs.IntVar(&o.Threads, "threads", o.Threads, fmt.Sprintf("how many files are read at once (1 to %d)", MaxThreads))
	fs.DurationVar(&timeout, "timeout", 0, "how long the load may run (0: no limit)")
	fs.BoolVar(&o.Metadata, "metadata", false, "list and stat every entry below the paths before reading any file (a DataLoad's loadMetadata)")
	return cmd
}
