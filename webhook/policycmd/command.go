package policycmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

// ExitError ends the command with a status code; its message has already
// been printed.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// NewCommand returns the `policy` command group.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Evaluate and test Sluice's Rego policies offline",
	}
	cmd.AddCommand(newEvalCommand(), newTestCommand(), newAuditCommand(), newFmtCommand(), newRulesCommand())
	return cmd
}
