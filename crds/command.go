package crds

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewCommand is `sluice crds`, with its subcommands (NewApplyCommand).
func NewCommand(sub ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "crds",
		Short: "The data.fluid.io CRDs this binary was built with",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(sub...)
	return cmd
}

// NewApplyCommand is `sluice crds apply`: the embedded CRDs, applied
// server-side to the cluster connect names, stamped with version.
func NewApplyCommand(connect func() (*rest.Config, error), version string) *cobra.Command {
	o := Options{Version: version}
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Apply the CRDs this binary was built with (server-side), the first step of an upgrade",
		Long: `Apply the data.fluid.io CRDs this binary was built with, server-side, under the
field manager ` + FieldManager + ` (taking over what helm install or kubectl set), and wait
until the API server serves them. Helm never upgrades a chart's crds/: run this
from the new version before helm upgrade. Each CRD is annotated
` + VersionAnnotation + ` with this binary's version; CRDs a newer version applied
are left alone (the command fails) unless --allow-downgrade is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := connect()
			if err != nil {
				return err
			}
			s := runtime.NewScheme()
			if err := apiextensionsv1.AddToScheme(s); err != nil {
				return err
			}
			c, err := client.New(cfg, client.Options{Scheme: s})
			if err != nil {
				return fmt.Errorf("connecting to the cluster: %w", err)
			}
			crds, err := Embedded()
			if err != nil {
				return err
			}
			if err := Apply(cmd.Context(), c, crds, o); err != nil {
				return err
			}
			suffix := "serverside-applied"
			if o.DryRun {
				suffix += " (server dry run)"
			}
			for _, crd := range crds {
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "customresourcedefinition.apiextensions.k8s.io/%s %s\n", crd.Name, suffix); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.AllowDowngrade, "allow-downgrade", false, "apply even over CRDs a newer Sluice applied")
	fs.BoolVar(&o.DryRun, "dry-run", false, "have the API server validate the CRDs without persisting them")
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for every CRD to be established (0: do not wait)")
	return cmd
}
