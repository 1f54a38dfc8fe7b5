package policycmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/workloads"
)

type evalOptions struct {
	pod            string
	object         string
	old            string
	objects        string
	policyDirs     []string
	profile        string
	patch          bool
	nativeSidecars bool
	configuration  string
	user           string
}

func newEvalCommand() *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval (--pod POD.yaml | --object OBJ.yaml [--old OLD.yaml]) [--objects CLUSTER.yaml] [--policies DIR]... [--patch]",
		Short: "Show what the webhooks would do with a Pod or a Sluice object",
		Long: `Runs a webhook's pipeline offline: the default policies, plus the policies
in each --policies directory, plus the policy ConfigMaps among the objects,
evaluated against the objects the webhook would see (Datasets, runtimes,
operations, PVCs, PVs, FUSE DaemonSets, Namespaces, ConfigMaps).

With --pod (mutating webhook) it first decides, as the API server does,
whether the Pod reaches the webhook at all (the namespace and object
selectors and match conditions of --webhook-configuration, by default the
one Sluice ships, for a Pod created by --user), then applies the webhook's
own guards (opt-out and done labels), and prints the mutated Pod as YAML, or
the JSON patch with --patch; a Pod left alone is printed unchanged, with the
reason on stderr. An error while mutating refuses a Pod labelled for
injection and admits any other unmutated with a warning, as the webhook
does. With --object (validating webhook; --old makes it an
UPDATE) it prints "allowed" and any warnings, including the Dataset claim it
would record. A denial prints its reasons to stderr and exits with status 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringVar(&o.pod, "pod", "", "the Pod to admit (YAML or JSON), or a Deployment, StatefulSet, DaemonSet, Job or CronJob, whose Pod template is admitted as its Pods would be")
	cmd.Flags().StringVar(&o.object, "object", "", "a Sluice object (operation, runtime or Dataset) to validate")
	cmd.Flags().StringVar(&o.old, "old", "", "with --object: its previous version, to validate an UPDATE")
	cmd.Flags().StringVar(&o.objects, "objects", "", "a multi-document file of the cluster objects the webhook would see")
	cmd.Flags().StringArrayVar(&o.policyDirs, "policies", nil, "a directory of extra Rego modules and policy data (repeatable)")
	cmd.Flags().StringVar(&o.profile, "profile", policies.ProfileRestricted, "the install profile whose policy data is merged over the defaults, as the chart's policies.profile ("+strings.Join(policies.Profiles(), ", ")+")")
	cmd.Flags().BoolVar(&o.patch, "patch", false, "print the JSON patch instead of the mutated Pod")
	cmd.Flags().BoolVar(&o.nativeSidecars, "native-sidecars", true, "whether the cluster supports native sidecars (Kubernetes >= 1.29)")
	cmd.Flags().StringVar(&o.configuration, "webhook-configuration", "", "with --pod: the MutatingWebhookConfiguration deciding which Pods reach the webhook (default: Sluice's, config/webhook/mutating.yaml)")
	cmd.Flags().StringVar(&o.user, "user", "eval-user", "with --pod: the user creating the Pod, as the match conditions see it")
	cmd.MarkFlagsOneRequired("pod", "object")
	cmd.MarkFlagsMutuallyExclusive("pod", "object")
	return cmd
}

func (o *evalOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var objs []client.Object
	if o.objects != "" {
		var err error
		if objs, err = readObjects(o.objects); err != nil {
			return err
		}
	}
	bundle, err := loadBundle(o.profile, o.policyDirs)
	if err != nil {
		return err
	}
	if o.object != "" {
		return o.runValidating(ctx, cmd, bundle, objs)
	}
	pod, err := readPod(o.pod)
	if err != nil {
		return err
	}
	if why, err := o.leftAlone(ctx, pod, objs); err != nil || why != "" {
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "left alone:", why)
		return o.print(cmd, pod, nil)
	}
	pipeline, err := fixture.NewPipeline(ctx, bundle, objs, o.nativeSidecars)
	if err != nil {
		return err
	}
	// As the handler does: a skipped Pod meets the deny rules, unmutated.
	skipped, skip := mutating.Skipped(pod)
	res, err := pipeline.Mutate(ctx, mutating.Request{Pod: pod, Operation: "CREATE", Namespace: pod.Namespace, CheckOnly: skip})
	var denied *decision.DeniedError
	switch {
	case err != nil && !errors.As(err, &denied) && !mutating.FailsClosed(pod):
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", mutating.ErroredOpenWarning(err))
		return o.print(cmd, pod, nil)
	case err != nil:
		return denialExit(cmd.ErrOrStderr(), err)
	case skip:
		fmt.Fprintln(cmd.ErrOrStderr(), "left alone: the webhook skips this Pod: "+skipped+" (no deny rule refuses it)")
		return o.print(cmd, pod, nil)
	}
	for _, w := range res.Decision.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	return o.print(cmd, res.Pod, res.Patch)
}

// print writes the Pod as YAML, or with --patch the JSON patch ([] for a
// Pod left as it was).
func (o *evalOptions) print(cmd *cobra.Command, pod *corev1.Pod, patch []jsonpatch.JsonPatchOperation) error {
	out := cmd.OutOrStdout()
	if o.patch {
		if patch == nil {
			patch = []jsonpatch.JsonPatchOperation{}
		}
		data, err := json.MarshalIndent(patch, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, string(data))
		return err
	}
	data, err := yaml.Marshal(pod)
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}

func (o *evalOptions) runValidating(ctx context.Context, cmd *cobra.Command, bundle *policy.Bundle, objs []client.Object) error {
	obj, err := readOne(o.object)
	if err != nil {
		return err
	}
	var old client.Object
	if o.old != "" {
		if old, err = readOne(o.old); err != nil {
			return err
		}
	}
	pipeline, err := fixture.NewValidatingPipeline(ctx, bundle, objs)
	if err != nil {
		return err
	}
	req, err := fixture.ValidatingRequest(obj, old)
	if err != nil {
		return err
	}
	d, err := pipeline.Validate(ctx, req)
	if err != nil {
		return denialExit(cmd.ErrOrStderr(), err)
	}
	for _, w := range d.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	for _, c := range d.Claims {
		fmt.Fprintf(cmd.OutOrStdout(), "claims dataset %s for %s %s (conflicting kinds: %s)\n", c.Dataset, c.Kind, obj.GetName(), strings.Join(c.Conflicts, ", "))
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), "allowed")
	return err
}

func readObjects(path string) ([]client.Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	objs, err := sluicescheme.DecodeObjects[client.Object](f, sluicescheme.New())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

func readOne(path string) (client.Object, error) {
	objs, err := readObjects(path)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s: want one object, found %d", path, len(objs))
	}
	return objs[0], nil
}

func readPod(path string) (*corev1.Pod, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var meta metav1.PartialObjectMetadata
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if meta.Namespace == "" {
		meta.Namespace = "default"
	}
	if slices.Contains(workloads.Kinds, meta.Kind) {
		// A workload: the Pod its template would create, as the workload
		// check judges it at apply time.
		raw, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t, _, err := workloads.TemplateOf(meta.Kind, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return workloads.Pod(meta.Namespace, meta.Name, t.Spec), nil
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

// denialExit prints a policy denial's reasons and exits 1; any other error
// is returned as it is.
func denialExit(w io.Writer, err error) error {
	var denied *decision.DeniedError
	if !errors.As(err, &denied) {
		return err
	}
	for _, d := range denied.Denials {
		fmt.Fprintln(w, "denied:", d.String())
	}
	return &ExitError{Code: 1}
}
