package webhookauth_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/chartrender"
	"github.com/sluice-data/sluice/webhook"
)

// installNamespace is the namespace the chart is rendered into, where the
// operator keeps the API server's client CA.
const installNamespace = "sluice-system"

// caConfigMap is the ConfigMap the operator stores the CA in, named in the
// chart's values.
const caConfigMap = "apiserver-client-ca"

// chartClientAuth is what the chart, installed with webhook.clientAuth
// on, gives the webhook: its --client-ca-file and --client-names, parsed by
// the webhook's own flag set from the Deployment's arguments, with the CA
// file where the kubelet would project it (the Deployment's client-ca
// volume, read from the API server into dir).
func chartClientAuth(ctx context.Context, c client.Client, dir string) (caFile string, names []string, err error) {
	objs, err := chartrender.Render(map[string]any{"webhook": map[string]any{"clientAuth": map[string]any{
		"enabled": true, "caConfigMap": caConfigMap, "allowedNames": []any{clientName},
	}}}, installNamespace)
	if err != nil {
		return "", nil, err
	}
	dep := &appsv1.Deployment{}
	for _, o := range objs {
		if o.GetKind() == "Deployment" && o.GetName() == "sluice-webhook" {
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, dep)
		}
	}
	if err != nil || len(dep.Spec.Template.Spec.Containers) == 0 {
		return "", nil, fmt.Errorf("the rendered webhook Deployment: %v", err)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	o := webhook.NewOptions()
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.AddFlags(fs)
	var args []string
	for _, a := range ctr.Args[1:] { // after "webhook"
		if !strings.HasPrefix(a, "--zap-") { // the root command's logging flags
			args = append(args, a)
		}
	}
	if err := fs.Parse(args); err != nil {
		return "", nil, fmt.Errorf("the chart's webhook arguments %q: %w", args, err)
	}
	if o.ClientCAFile == "" {
		return "", nil, fmt.Errorf("the chart gave the webhook no --client-ca-file: %q", args)
	}
	local, err := project(ctx, c, dep.Spec.Template.Spec, ctr, o.ClientCAFile, dir)
	return local, o.ClientNames, err
}

// project does the kubelet's part for one file of the pod: it finds the
// volume mounted over path, reads the ConfigMap item that volume projects
// there, writes it below dir and returns where.
func project(ctx context.Context, c client.Client, spec corev1.PodSpec, ctr corev1.Container, path, dir string) (string, error) {
	for _, m := range ctr.VolumeMounts {
		rel, err := filepath.Rel(m.MountPath, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: v.ConfigMap.Name}, cm); err != nil {
				return "", err
			}
			for _, item := range v.ConfigMap.Items {
				if item.Path == rel {
					local := filepath.Join(dir, "projected", m.Name, rel)
					if err := os.MkdirAll(filepath.Dir(local), 0o700); err != nil {
						return "", err
					}
					return local, os.WriteFile(local, []byte(cm.Data[item.Key]), 0o600)
				}
			}
		}
	}
	return "", fmt.Errorf("no ConfigMap volume of the webhook container projects %s", path)
}

// storeCA is the operator's step before installing: the API server's
// client CA in a ConfigMap of the install namespace.
func storeCA(ctx context.Context, c client.Client, pem []byte) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: installNamespace}}); err != nil {
		return err
	}
	return c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: caConfigMap, Namespace: installNamespace},
		Data: map[string]string{"ca.crt": string(pem)}})
}
