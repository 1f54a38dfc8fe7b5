package juicefs

import (
	"k8s.io/apimachinery/pkg/api/equality"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// refuseUnsupported refuses the JuiceFSRuntime fields the engine cannot
// honour, naming each, rather than accept and ignore them.
func refuseUnsupported(rt *datav1alpha1.JuiceFSRuntime) error {
	s := rt.Spec
	switch {
	case !equality.Semantic.DeepEqual(s.Master, datav1alpha1.JuiceFSCompTemplateSpec{}):
		return engines.Invalid("spec.master: the JuiceFS engine runs no master (the community edition's metadata engine is the metaurl's, the enterprise edition's is the console's); remove it")
	case !equality.Semantic.DeepEqual(s.JobWorker, datav1alpha1.JuiceFSCompTemplateSpec{}):
		return engines.Invalid("spec.jobWorker: the JuiceFS engine runs no job workers (data operations run as their own Jobs); remove it")
	case s.RunAs != nil:
		return engines.Invalid("spec.runAs: JuiceFS workers and FUSE run as root, privileged, to mount FUSE; remove it")
	case !equality.Semantic.DeepEqual(s.InitUsers, datav1alpha1.InitUsersSpec{}):
		return engines.Invalid("spec.initUsers: the JuiceFS engine runs no init-users container; remove it")
	case len(s.Worker.Ports) > 0:
		return engines.Invalid("spec.worker.ports: a JuiceFS worker's only port is metrics (9567); remove them")
	case s.Worker.Replicas != 0:
		return engines.Invalid("spec.worker.replicas: the number of workers is spec.replicas; remove it")
	}
	return nil
}
