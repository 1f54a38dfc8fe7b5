package jindo

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// loadFlags are the DataLoad options JindoCache's load takes, by Fluid's
// names: a true boolean adds its flag.
var loadFlags = map[string]string{"loadMemorydata": "-m", "atomicCache": "-atomic", "dryrun": "-dryrun", "forceload": "-f"}

// loadOptions are the DataLoad options with a value, and the flag taking it.
var loadOptions = map[string]string{"threadNum": "-thread", "filter": "-filter"}

// loadPod loads each target (the whole Dataset without targets) with its
// replicas (1 when unset), one `jindocache -load` after another: -meta
// with loadMetadata, -data unless the option loadMetadataOnly, -m for a
// memory tier unless the option loadMemorydata says otherwise, then the
// other options' flags, -s -R -replica <n> and jindo://<path>. The client
// reads the runtime's configuration and credentials as FUSE does.
func loadPod(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime, dl *datav1alpha1.DataLoad, img image) (dataop.Pod, error) {
	m, err := masterOf(ds, rt)
	if err != nil {
		return dataop.Pod{}, err
	}
	u, err := ufsOf(ds)
	if err != nil {
		return dataop.Pod{}, err
	}
	cr, err := credentialsOf(ds, rt, u.Schemes)
	if err != nil {
		return dataop.Pod{}, err
	}
	flags, err := optionFlags(dl, rt)
	if err != nil {
		return dataop.Pod{}, err
	}
	targets := dl.Spec.Target
	if len(targets) == 0 {
		targets = []datav1alpha1.TargetPath{{Path: "/", Replicas: 1}}
	}
	var steps []dataop.Step
	for i, t := range targets {
		if !strings.HasPrefix(t.Path, "/") {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].path %q: a path in the Dataset starts with /", i, t.Path)
		}
		replicas := t.Replicas
		if replicas == 0 {
			replicas = 1
		}
		if replicas < 0 {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].replicas is %d; at least 1", i, replicas)
		}
		argv := append(dataop.Args("jindocache", "-load"), flags...)
		argv = append(argv, dataop.Args("-s", "-R", "-replica", strconv.Itoa(int(replicas)), "jindo://"+t.Path)...)
		steps = append(steps, dataop.Step{Name: fmt.Sprintf("load-%d", i), Argv: argv})
	}
	c := dataop.Image{Repository: img.Repository, Tag: img.Tag, PullPolicy: corev1.PullPolicy(img.PullPolicy)}.Container()
	c.Resources = dl.Spec.Resources
	c.Env = []corev1.EnvVar{{Name: "CLIENT_NAMESPACE_RPC_ADDRESS", Value: dataop.NoExpand(m.Address)}}
	if rt.Spec.User != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: "RUN_AS_USER", Value: dataop.NoExpand(rt.Spec.User)})
	}
	volumes := []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: rt.Name + "-config"}}}}}
	for _, f := range []string{"jindocache.cfg", "jindosdk.cfg", "cacheset.xml"} {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/" + f, SubPath: f, ReadOnly: true})
	}
	if cr.Volume != nil {
		volumes = append(volumes, credentialsVolume(cr.Volume))
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "credentials", MountPath: TokenDir, ReadOnly: true})
	}
	initContainers, containers := dataop.Sequence(c, steps)
	return dataop.Pod{Spec: corev1.PodSpec{InitContainers: initContainers, Containers: containers, Volumes: volumes,
		ImagePullSecrets: rt.Spec.ImagePullSecrets}}, nil
}

// optionFlags are the flags the DataLoad's options and loadMetadata ask
// for, in a fixed order. Fluid's cache-list options (a list downloaded with
// plain-text keys) are refused, as is any option JindoCache's load lacks.
func optionFlags(dl *datav1alpha1.DataLoad, rt *datav1alpha1.JindoRuntime) ([]string, error) {
	opts := dl.Spec.Options
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		_, flag := loadFlags[k]
		_, valued := loadOptions[k]
		if !flag && !valued && k != "loadMetadataOnly" {
			return nil, engines.Invalid("spec.options[%q]: JindoCache's load takes %s", k, strings.Join(knownOptions(), ", "))
		}
	}
	boolean := func(k string, def bool) (bool, error) {
		v, ok := opts[k]
		if !ok {
			return def, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, engines.Invalid("spec.options[%s] is %q; want true or false", k, v)
		}
		return b, nil
	}
	metaOnly, err := boolean("loadMetadataOnly", false)
	if err != nil {
		return nil, err
	}
	var out []string
	if dl.Spec.LoadMetadata || metaOnly {
		out = append(out, "-meta")
	}
	if !metaOnly {
		out = append(out, "-data")
	}
	memoryTier := len(rt.Spec.TieredStore.Levels) > 0 && rt.Spec.TieredStore.Levels[0].MediumType == datav1alpha1.Memory
	for _, k := range []string{"atomicCache", "loadMemorydata", "dryrun", "forceload"} {
		on, err := boolean(k, k == "loadMemorydata" && memoryTier)
		if err != nil {
			return nil, err
		}
		if on {
			out = append(out, loadFlags[k])
		}
	}
	if v, ok := opts["threadNum"]; ok {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, engines.Invalid("spec.options[threadNum] is %q; want a positive number", v)
		}
		out = append(out, "-thread", v)
	}
	if v, ok := opts["filter"]; ok {
		out = append(out, "-filter", v)
	}
	return dataop.Args(out...), nil
}

func knownOptions() []string {
	known := append(slices.Collect(maps.Keys(loadFlags)), slices.Collect(maps.Keys(loadOptions))...)
	known = append(known, "loadMetadataOnly")
	slices.Sort(known)
	return known
}

// credentialsVolume is the /token volume as the runtime's chart renders it:
// a whole Secret (spec.secret) or the projected access-key halves.
func credentialsVolume(c *credentials) corev1.Volume {
	v := corev1.Volume{Name: "credentials"}
	if c.Secret != "" {
		v.Secret = &corev1.SecretVolumeSource{SecretName: c.Secret}
		return v
	}
	p := &corev1.ProjectedVolumeSource{}
	for _, it := range c.Items {
		p.Sources = append(p.Sources, corev1.VolumeProjection{Secret: &corev1.SecretProjection{
			LocalObjectReference: corev1.LocalObjectReference{Name: it.Secret},
			Items:                []corev1.KeyToPath{{Key: it.Key, Path: it.Path}}}})
	}
	v.Projected = p
	return v
}
