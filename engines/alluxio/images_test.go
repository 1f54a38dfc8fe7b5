package alluxio_test

import (
	"slices"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestDefaultImagesAsConfigured: the mirrored default reaches every
// container, the mount Job's included, also through the engine that
// resolves spec.hadoopConfig.
func TestDefaultImagesAsConfigured(t *testing.T) {
	e := alluxio.Engine{Images: engines.Images{Registry: "mirror.example.com"}}
	ds, rt := sample()
	rt.Spec.HadoopConfig = "hdfs-conf"
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "hdfs://mycluster/", Name: "hadoop"})
	_, out := enginetest.Render(t, e, tenantObjects(), ds, rt)
	if got, want := enginetest.Images(out), []string{"mirror.example.com/alluxio/alluxio:2.9.4"}; !slices.Equal(got, want) {
		t.Errorf("images %v, want %v", got, want)
	}
}
