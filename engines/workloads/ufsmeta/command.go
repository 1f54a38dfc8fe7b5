package ufsmeta

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// ResultFile is where the metadata pod writes its result: the container's
// termination-message file, which the kubelet copies into the pod's status
// for the controller to read.
const ResultFile = "/dev/termination-log"

// NewCommand is `sluice ufs-count [--result-file FILE] DIR`: it counts the
// regular files under DIR and their bytes (Count), writes the result as
// the termination message (Message) to FILE and prints it.
func NewCommand() *cobra.Command {
	var resultFile string
	cmd := &cobra.Command{
		Use:   "ufs-count [--result-file FILE] DIR",
		Short: "Count a Dataset's files and bytes through its mount (the program of the controller's metadata Job)",
		Long: "Walks DIR without following links and counts its regular files and the sum of their\n" +
			"sizes: a Dataset's fileNum and ufsTotal. The result, {\"bytes\":<n>,\"files\":<n>}, is\n" +
			"written to FILE (the container's termination-message file, which the controller reads\n" +
			"from the pod's status) and to standard output. A directory it cannot read fails the count.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := Count(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("counting %s: %w", args[0], err)
			}
			msg := Message(u)
			if resultFile != "" {
				if err := os.WriteFile(resultFile, []byte(msg), 0o644); err != nil {
					return fmt.Errorf("writing the result: %w", err)
				}
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), msg)
			return err
		},
	}
	cmd.Flags().StringVar(&resultFile, "result-file", ResultFile, "where the result is written (empty: standard output only)")
	return cmd
}
