package juicefs

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Where a local:// or pvc:// external storage appears in the sync pod.
const (
	externalVolume = "external"
	externalMount  = "/sluice/external"
)

// externalCredentials maps the encrypt options Fluid reads for external
// storage to the environment variables their Secret keys become; the URI
// names them as $(VAR), which the kubelet fills in, so the values never
// reach a manifest.
var externalCredentials = map[string]string{"access-key": "EXTERNAL_ACCESS_KEY", "secret-key": "EXTERNAL_SECRET_KEY", "token": "EXTERNAL_TOKEN"}

// syncPod runs `juicefs sync <from> <to>`: the Dataset end is the volume by
// its metadata URL (jfs://METAURL/<path>, the variable the Dataset's
// metaurl encrypt option fills), the other an object-store URI, or a
// local:// or pvc:// directory mounted into the pod. Options become sync's
// flags (timeout: how long it may run). With spec.parallelism above 1 the
// pod is the manager of parallel workers (parallel.go); release names them.
func syncPod(ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime, dm *datav1alpha1.DataMigrate, release string, img dataop.Image) (dataop.Pod, error) {
	spec := dm.Spec
	if spec.RuntimeType != "" && spec.RuntimeType != "juicefs" {
		return dataop.Pod{}, engines.Invalid("spec.runtimeType %q: the Dataset is served by JuiceFS", spec.RuntimeType)
	}
	par, err := parallelOf(spec)
	if err != nil {
		return dataop.Pod{}, err
	}
	env, err := datasetEnv(ds)
	if err != nil {
		return dataop.Pod{}, err
	}
	pod := dataop.Pod{}
	c := img.With(spec.VersionSpec).Container()
	c.Name, c.Resources = "sync", spec.Resources
	var ends [2]string
	for i, end := range []struct {
		field string
		data  datav1alpha1.DataToMigrate
	}{{"spec.from", spec.From}, {"spec.to", spec.To}} {
		switch d := end.data; {
		case d.DataSet != nil && d.ExternalStorage != nil:
			return dataop.Pod{}, engines.Invalid("%s: set dataset or externalStorage, not both", end.field)
		case d.DataSet != nil:
			if d.DataSet.Name != ds.Name || (d.DataSet.Namespace != "" && d.DataSet.Namespace != ds.Namespace) {
				return dataop.Pod{}, engines.Invalid("%s.dataset %s/%s: the migration's Dataset is %s/%s", end.field, d.DataSet.Namespace, d.DataSet.Name, ds.Namespace, ds.Name)
			}
			ends[i] = datasetURI(d.DataSet.Path)
		case d.ExternalStorage != nil:
			uri, extEnv, err := externalURI(end.field+".externalStorage", *d.ExternalStorage, &pod.Spec, &c)
			if err != nil {
				return dataop.Pod{}, err
			}
			ends[i], env = uri, append(env, extEnv...)
		default:
			return dataop.Pod{}, engines.Invalid("%s: set dataset or externalStorage", end.field)
		}
	}
	if spec.From.DataSet != nil && spec.To.DataSet != nil {
		return dataop.Pod{}, engines.Invalid("spec.from and spec.to both name the Dataset; one end must be externalStorage")
	}
	if spec.From.DataSet == nil && spec.To.DataSet == nil {
		return dataop.Pod{}, engines.Invalid("spec.from and spec.to are both externalStorage; one end must be the Dataset")
	}
	flags, err := dataop.Flags("spec.options", spec.Options, timeoutOption)
	if err != nil {
		return dataop.Pod{}, err
	}
	c.Command = append(append(dataop.Args("timeout", timeoutOf(spec.Options), "juicefs", "sync"), flags...), ends[0], ends[1])
	seen := map[string]bool{}
	for _, e := range env {
		if seen[e.Name] {
			return dataop.Pod{}, engines.Invalid("the Dataset's encrypt options and the external storage's both set $%s", e.Name)
		}
		seen[e.Name] = true
	}
	c.Env = env
	if par != nil {
		par.apply(release, &pod, &c)
	}
	pod.Spec.Containers = []corev1.Container{c}
	return pod, nil
}

// metaURLEnv is the variable holding the volume's metadata URL: the
// Dataset's metaurl encrypt option, as every JuiceFS container reads it.
var metaURLEnv = envName("metaurl")

// datasetEnv is the Dataset's encrypt options as environment variables from
// their Secrets; the metadata URL must be among them.
func datasetEnv(ds *datav1alpha1.Dataset) ([]corev1.EnvVar, error) {
	var env []corev1.EnvVar
	for _, s := range datasetSecrets(ds) {
		env = append(env, secretEnv(s.env, s.secret, s.key))
	}
	if !slices.ContainsFunc(env, func(e corev1.EnvVar) bool { return e.Name == metaURLEnv }) {
		return nil, engines.Invalid("dataset %s/%s has no metaurl encrypt option: juicefs sync reaches the volume by its metadata URL", ds.Namespace, ds.Name)
	}
	return env, nil
}

// datasetURI is the volume's path as juicefs sync names it: jfs://<the
// variable holding the metadata URL><path>. A path without a trailing /
// is a file or a directory itself, with one the directory's contents, as
// juicefs sync reads it.
func datasetURI(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return dataop.NoExpand("jfs://" + metaURLEnv + p)
}

// externalURI is the external end as juicefs sync names it, and the
// variables it needs. A local:// or pvc:// directory is mounted into c at
// externalMount (its contents are synced); an object store's credentials
// become the URI's user info, $(EXTERNAL_ACCESS_KEY):$(EXTERNAL_SECRET_KEY)
// [:$(EXTERNAL_TOKEN)], from their Secrets.
func externalURI(field string, ext datav1alpha1.ExternalStorage, spec *corev1.PodSpec, c *corev1.Container) (string, []corev1.EnvVar, error) {
	if strings.HasPrefix(ext.URI, "local://") || strings.HasPrefix(ext.URI, "pvc://") {
		if len(ext.EncryptOptions) > 0 {
			return "", nil, engines.Invalid("%s.encryptOptions: a local:// or pvc:// directory takes no credentials", field)
		}
		loc, err := dataop.ParseLocation(field+".uri", ext.URI, externalVolume)
		if err != nil {
			return "", nil, err
		}
		spec.Volumes = append(spec.Volumes, loc.Volume)
		c.VolumeMounts = append(c.VolumeMounts, loc.Mount(externalMount, false))
		return externalMount + "/", nil, nil
	}
	scheme, rest, ok := strings.Cut(ext.URI, "://")
	if !ok || scheme == "" || rest == "" {
		return "", nil, engines.Invalid("%s.uri %q: want <scheme>://<bucket>[/<prefix>] (juicefs sync's form), local:// or pvc://", field, ext.URI)
	}
	refs := map[string]corev1.EnvVar{}
	for i, eo := range ext.EncryptOptions {
		name, known := externalCredentials[eo.Name]
		if !known {
			return "", nil, engines.Invalid("%s.encryptOptions[%d].name %q: juicefs sync takes access-key, secret-key and token", field, i, eo.Name)
		}
		ref := eo.ValueFrom.SecretKeyRef
		if ref.Name == "" || ref.Key == "" {
			return "", nil, engines.Invalid("%s.encryptOptions[%d].valueFrom.secretKeyRef needs both name and key", field, i)
		}
		if _, dup := refs[eo.Name]; dup {
			return "", nil, engines.Invalid("%s.encryptOptions[%d]: %s is given twice", field, i, eo.Name)
		}
		refs[eo.Name] = secretEnv(name, ref.Name, ref.Key)
	}
	uri := dataop.NoExpand(ext.URI)
	if len(refs) == 0 {
		return uri, nil, nil
	}
	_, hasKey := refs["access-key"]
	_, hasSecret := refs["secret-key"]
	if !hasKey || !hasSecret {
		return "", nil, engines.Invalid("%s.encryptOptions: access-key and secret-key go together (token is optional)", field)
	}
	if authority, _, _ := strings.Cut(rest, "/"); strings.Contains(authority, "@") {
		return "", nil, engines.Invalid("%s.uri: the URI carries credentials already; give them by encryptOptions only", field)
	}
	userinfo := fmt.Sprintf("$(%s):$(%s)", externalCredentials["access-key"], externalCredentials["secret-key"])
	env := []corev1.EnvVar{refs["access-key"], refs["secret-key"]}
	if tok, ok := refs["token"]; ok {
		userinfo += fmt.Sprintf(":$(%s)", tok.Name)
		env = append(env, tok)
	}
	return dataop.NoExpand(scheme+"://") + userinfo + "@" + dataop.NoExpand(rest), env, nil
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}
