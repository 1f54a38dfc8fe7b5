package alluxio

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// ReasonHadoopConfigNotFound: the ConfigMap a runtime's spec.hadoopConfig
// names does not exist (yet), or holds neither hdfs-site.xml nor
// core-site.xml; the runtime waits for it.
const ReasonHadoopConfigNotFound = "HadoopConfigNotFound"

// hadoopConfDir is where the spec.hadoopConfig ConfigMap's files are
// mounted, read-only, in every Alluxio container that may reach HDFS.
const hadoopConfDir = "/hdfs-config"

// hadoopFiles are the files of a spec.hadoopConfig ConfigMap that Alluxio's
// HDFS client reads, in the order it layers them.
var hadoopFiles = []string{"hdfs-site.xml", "core-site.xml"}

// hadoopConfig is the spec.hadoopConfig ConfigMap as the chart mounts it:
// its name and the keys of hadoopFiles it holds (each mounted as the file
// of that name under hadoopConfDir).
type hadoopConfig struct {
	ConfigMap string   `json:"configMap"`
	Files     []string `json:"files"`
}

// Resolve implements engines.Resolver: a runtime naming a Hadoop
// configuration (spec.hadoopConfig) gets the engine that mounts the files
// its ConfigMap holds, read once per reconcile; any other runtime gets
// this engine (its images kept).
func (e Engine) Resolve(ctx context.Context, r client.Reader, obj client.Object) (engines.Engine, error) {
	rt, err := alluxioRuntime(obj)
	if err != nil || rt.Spec.HadoopConfig == "" {
		return Engine{Images: e.Images}, err
	}
	conf, err := readHadoopConfig(ctx, r, rt)
	if err != nil {
		return nil, err
	}
	return Engine{hadoop: conf, Images: e.Images}, nil
}

// readHadoopConfig reads the ConfigMap rt's spec.hadoopConfig names, in
// rt's namespace, and which of hadoopFiles it holds. A missing ConfigMap,
// or one holding neither file, is a ReasonHadoopConfigNotFound error.
func readHadoopConfig(ctx context.Context, r client.Reader, rt *datav1alpha1.AlluxioRuntime) (*hadoopConfig, error) {
	name := rt.Spec.HadoopConfig
	cm := &corev1.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: rt.Namespace, Name: name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &engines.Error{Reason: ReasonHadoopConfigNotFound, Err: fmt.Errorf(
				"AlluxioRuntime %s/%s: ConfigMap %q (spec.hadoopConfig) does not exist in namespace %s; create it with hdfs-site.xml and/or core-site.xml",
				rt.Namespace, rt.Name, name, rt.Namespace)}
		}
		return nil, fmt.Errorf("reading ConfigMap %q (spec.hadoopConfig) of AlluxioRuntime %s/%s: %w", name, rt.Namespace, rt.Name, err)
	}
	conf := &hadoopConfig{ConfigMap: name}
	for _, f := range hadoopFiles {
		if _, ok := cm.Data[f]; ok {
			conf.Files = append(conf.Files, f)
		}
	}
	if len(conf.Files) == 0 {
		return nil, &engines.Error{Reason: ReasonHadoopConfigNotFound, Err: fmt.Errorf(
			"AlluxioRuntime %s/%s: ConfigMap %q (spec.hadoopConfig) holds neither %s in its data; add them",
			rt.Namespace, rt.Name, name, strings.Join(hadoopFiles, " nor "))}
	}
	return conf, nil
}

// planHadoopConfig is the chart's hadoopConfig value and the property
// pointing Alluxio's HDFS client at its files (none without
// spec.hadoopConfig). Asked for a runtime naming one, the engine must be
// the one Resolve returned for it.
func (e Engine) planHadoopConfig(rt *datav1alpha1.AlluxioRuntime) (*hadoopConfig, map[string]string, error) {
	if rt.Spec.HadoopConfig == "" {
		return nil, nil, nil
	}
	if e.hadoop == nil || e.hadoop.ConfigMap != rt.Spec.HadoopConfig {
		return nil, nil, engines.Invalid("AlluxioRuntime %s/%s names ConfigMap %q in spec.hadoopConfig, which was not read: "+
			"its values come from the engine Resolve returns (engines.Resolver)", rt.Namespace, rt.Name, rt.Spec.HadoopConfig)
	}
	paths := make([]string, len(e.hadoop.Files))
	for i, f := range e.hadoop.Files {
		paths[i] = hadoopConfDir + "/" + f
	}
	return e.hadoop, map[string]string{"alluxio.underfs.hdfs.configuration": strings.Join(paths, ":")}, nil
}
