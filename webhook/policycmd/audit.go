package policycmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/policy"
)

// The output formats of `policy audit`.
const (
	outputTable        = "table"
	outputJSON         = "json"
	outputPolicyReport = "policyreport"
)

type auditOptions struct {
	kubeconfig       string
	kubeContext      string
	objects          string
	namespaces       []string
	skip             []string
	policyDirs       []string
	profile          string
	policyNamespaces []string
	fuseRecords      string
	nativeSidecars   bool
	output           string
}

func newAuditCommand() *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig FILE | --objects CLUSTER.yaml] [--policies DIR]... [-o table|json|policyreport]",
		Short: "List the stored objects the policies would refuse today",
		Long: `Evaluates the objects already stored, read-only: every Dataset, runtime,
data operation and ThinRuntimeProfile through the validating webhook's
policies as its CREATE would be (the rules about updates do not apply, and
no Dataset claim is recorded), and every running or pending Pod that mounts
a PVC or asked for injection through the mutating webhook's deny rules
(nothing is mutated).

The objects come from the cluster of --kubeconfig (or of $KUBECONFIG,
~/.kube/config), listed once with get/list rights only, or from the
manifests of --objects. The bundle is the live one: the embedded policies,
the --profile data, and the policy ConfigMaps (labelled
policy.sluice.io/bundle=true) of --policy-namespaces (or those among
--objects). Each --policies directory is a candidate laid over it: its
modules replace the live modules of the same path, its data is merged over
the live data. So "what would my tightened guard refuse" is answered before
the ConfigMap is applied.

Output: a table of the findings (the default): the objects refused (fail)
or not evaluated (error), and the findings of rules whose mode admits the
object (warn, dryrun) or that an exception covers (excepted, naming it);
the findings as JSON,
or PolicyReports (wgpolicyk8s.io/v1alpha2, one per namespace, and a
ClusterPolicyReport for ThinRuntimeProfiles) as YAML, as the in-cluster
audit writes them (warn and dryrun findings are warn results, excepted
ones skip results; the property outcome says which). The command exits 1
when any object is refused or could not be evaluated.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE:         func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig of the cluster to audit (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&o.kubeContext, "context", "", "with the cluster: the kubeconfig context to use")
	cmd.Flags().StringVar(&o.objects, "objects", "", "audit the objects of this multi-document file instead of a cluster")
	cmd.Flags().StringSliceVarP(&o.namespaces, "namespace", "n", nil, "audit only these namespaces (default: every namespace; ThinRuntimeProfiles are audited only then)")
	cmd.Flags().StringSliceVar(&o.skip, "skip-namespaces", []string{"kube-system", "sluice-system"}, "namespaces not audited: those the webhooks never see (kube-system, Sluice's own, the chart's webhook.excludeNamespaces)")
	cmd.Flags().StringArrayVar(&o.policyDirs, "policies", nil, "a directory of candidate Rego modules and policy data laid over the live bundle (repeatable)")
	cmd.Flags().StringVar(&o.profile, "profile", policies.ProfileRestricted, "the install profile the webhook runs with, the chart's policies.profile ("+strings.Join(policies.Profiles(), ", ")+")")
	cmd.Flags().StringSliceVar(&o.policyNamespaces, "policy-namespaces", []string{"sluice-system"}, "with the cluster: the namespaces whose policy ConfigMaps the webhook loads (its --policy-namespaces)")
	cmd.Flags().StringVar(&o.fuseRecords, "fuse-record-namespace", "sluice-system", "the namespace of the controller's FUSE records (the webhook's --fuse-record-namespace)")
	cmd.Flags().BoolVar(&o.nativeSidecars, "native-sidecars", true, "whether the cluster supports native sidecars (Kubernetes >= 1.29)")
	cmd.Flags().StringVarP(&o.output, "output", "o", outputTable, "output format: table, json or policyreport")
	cmd.MarkFlagsMutuallyExclusive("objects", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("objects", "context")
	return cmd
}

func (o *auditOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if !slices.Contains([]string{outputTable, outputJSON, outputPolicyReport}, o.output) {
		return fmt.Errorf("--output must be table, json or policyreport, not %q", o.output)
	}
	src, cms, err := o.source(ctx)
	if err != nil {
		return err
	}
	src.Skip = o.skip
	bundle, err := o.bundle(cms)
	if err != nil {
		return err
	}
	engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
	if err := engine.Load(ctx, bundle); err != nil {
		return fmt.Errorf("compiling the policies: %w", err)
	}
	a := audit.New(engine, src.Objects, o.fuseRecords, o.nativeSidecars)
	namespaces, err := src.ListNamespaces(ctx)
	if err != nil {
		return err
	}
	if o.namespaces == nil {
		namespaces = append([]string{""}, namespaces...)
	}
	p := newAuditPrinter(cmd.OutOrStdout(), o.output)
	for _, ns := range namespaces {
		findings, err := src.Namespace(ctx, a, ns)
		if err != nil {
			return err
		}
		if err := p.namespace(ns, findings); err != nil {
			return err
		}
	}
	refused, err := p.done()
	if err != nil {
		return err
	}
	if refused > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "%d finding(s): objects the policies refuse or could not evaluate\n", refused)
		return &ExitError{Code: 1}
	}
	return nil
}

// bundle is the live bundle (the profile's, then the live policy
// ConfigMaps) with the candidate directories laid over it.
func (o *auditOptions) bundle(cms []corev1.ConfigMap) (*policy.Bundle, error) {
	base, err := policy.ProfileBundle(o.profile)
	if err != nil {
		return nil, err
	}
	live, err := policy.FromConfigMaps(base, cms)
	if err != nil {
		return nil, fmt.Errorf("the live policy ConfigMaps: %w", err)
	}
	candidate := policy.NewBundle()
	for _, dir := range o.policyDirs {
		if _, ok, err := isExampleSet(dir); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("%s is a set of example directories; pass one of them", dir)
			}
			return nil, err
		}
		d, err := readPolicyDir(dir)
		if err != nil {
			return nil, err
		}
		if err := d.addTo(candidate); err != nil {
			return nil, fmt.Errorf("loading policies from %s: %w", dir, err)
		}
	}
	return live.Merge(candidate), nil
}

// source returns where the objects are read from, and the live policy
// ConfigMaps.
func (o *auditOptions) source(ctx context.Context) (*audit.Source, []corev1.ConfigMap, error) {
	if o.objects == "" {
		return o.clusterSource(ctx)
	}
	objs, err := readObjects(o.objects)
	if err != nil {
		return nil, nil, err
	}
	var cms []corev1.ConfigMap
	var rest []client.Object
	namespaces := map[string]bool{}
	seen := map[string]bool{}
	for _, obj := range objs {
		key := fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName())
		if seen[key] {
			return nil, nil, fmt.Errorf("%s: %s %s/%s appears twice", o.objects, kindOf(obj), obj.GetNamespace(), obj.GetName())
		}
		seen[key] = true
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Labels[policy.BundleLabel] == "true" {
			cms = append(cms, *cm)
			continue
		}
		if obj.GetNamespace() != "" {
			namespaces[obj.GetNamespace()] = true
		}
		rest = append(rest, obj)
	}
	r := staticReader(sluicescheme.New(), rest)
	src := &audit.Source{Objects: r, Pods: r, Namespaces: o.namespaces}
	if src.Namespaces == nil {
		src.Namespaces = keys(namespaces)
	}
	return src, cms, nil
}

func staticReader(s *runtime.Scheme, objs []client.Object) client.Reader {
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// kindOf is obj's kind as the manifest named it.
func kindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	return fmt.Sprintf("%T", obj)
}
