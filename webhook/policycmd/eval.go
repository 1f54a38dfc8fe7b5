package policycmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

type evalOptions struct {
	pod            string
	objects        string
	policyDirs     []string
	patch          bool
	nativeSidecars bool
}

func newEvalCommand() *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval --pod POD.yaml [--objects CLUSTER.yaml] [--policies DIR]... [--patch]",
		Short: "Print the Pod as the mutating webhook would admit it, or why it would be denied",
		Long: `Runs the mutating webhook's pipeline on a Pod: the default policies, plus
the policies in each --policies directory, plus the policy ConfigMaps among the
objects, evaluated against the objects the webhook would see (Datasets,
runtimes, PVCs, PVs, FUSE DaemonSets, Namespaces, ConfigMaps).

Prints the mutated Pod as YAML, or the JSON patch with --patch. A denial
prints its reasons to stderr and exits with status 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringVar(&o.pod, "pod", "", "the Pod to admit (YAML or JSON)")
	cmd.Flags().StringVar(&o.objects, "objects", "", "a multi-document file of the cluster objects the webhook would see")
	cmd.Flags().StringArrayVar(&o.policyDirs, "policies", nil, "a directory of extra Rego modules and policy data (repeatable)")
	cmd.Flags().BoolVar(&o.patch, "patch", false, "print the JSON patch instead of the mutated Pod")
	cmd.Flags().BoolVar(&o.nativeSidecars, "native-sidecars", true, "whether the cluster supports native sidecars (Kubernetes >= 1.29)")
	_ = cmd.MarkFlagRequired("pod")
	return cmd
}

func (o *evalOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	pod, err := readPod(o.pod)
	if err != nil {
		return err
	}
	var objs []client.Object
	if o.objects != "" {
		f, err := os.Open(o.objects)
		if err != nil {
			return err
		}
		defer f.Close()
		if objs, err = snapshot.DecodeObjects(f, sluicescheme.New()); err != nil {
			return fmt.Errorf("%s: %w", o.objects, err)
		}
	}
	bundle, err := loadBundle(o.policyDirs)
	if err != nil {
		return err
	}
	pipeline, err := fixture.NewPipeline(ctx, bundle, objs, o.nativeSidecars)
	if err != nil {
		return err
	}
	res, err := pipeline.Mutate(ctx, mutating.Request{Pod: pod, Operation: "CREATE", Namespace: pod.Namespace})
	var denied *mutating.DeniedError
	if errors.As(err, &denied) {
		for _, d := range denied.Denials {
			fmt.Fprintln(cmd.ErrOrStderr(), "denied:", d.String())
		}
		return &ExitError{Code: 1}
	}
	if err != nil {
		return err
	}
	for _, w := range res.Decision.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	out := cmd.OutOrStdout()
	if o.patch {
		data, err := json.MarshalIndent(res.Patch, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, string(data))
		return err
	}
	data, err := yaml.Marshal(res.Pod)
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}

func readPod(path string) (*corev1.Pod, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pod := &corev1.Pod{}
	if err := yaml.UnmarshalStrict(data, pod); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	return pod, nil
}
