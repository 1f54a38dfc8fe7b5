package juicefs

import (
	"fmt"
	"regexp"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// check refuses the spec strings a JuiceFS container could not take as
// they are: images and pull policies, options (juicefs arguments), the
// mount point, cache paths, and encrypt option names, which become
// environment variable names.
func check(ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) error {
	f := rt.Spec.Fuse
	checks := []error{
		engines.CheckVersion("spec.juicefsVersion", rt.Spec.JuiceFSVersion),
		engines.CheckVersion("spec.fuse", datav1alpha1.VersionSpec{Image: f.Image, ImageTag: f.ImageTag, ImagePullPolicy: f.ImagePullPolicy}),
		engines.CheckOptions("spec.worker.options", rt.Spec.Worker.Options),
		engines.CheckOptions("spec.fuse.options", f.Options),
		engines.CheckLine("dataset spec.mounts[0].mountPoint", ds.Spec.Mounts[0].MountPoint),
		engines.CheckOptions("dataset spec.sharedOptions", ds.Spec.SharedOptions),
		engines.CheckOptions("dataset spec.mounts[0].options", ds.Spec.Mounts[0].Options),
	}
	for i, l := range rt.Spec.TieredStore.Levels {
		checks = append(checks, engines.CheckLine(fmt.Sprintf("spec.tieredstore.levels[%d].path", i), l.Path),
			engines.CheckLine(fmt.Sprintf("spec.tieredstore.levels[%d].low", i), l.Low))
	}
	for i, eo := range ds.Spec.SharedEncryptOptions {
		checks = append(checks, checkEncryptName(fmt.Sprintf("dataset spec.sharedEncryptOptions[%d].name", i), eo.Name))
	}
	for i, eo := range ds.Spec.Mounts[0].EncryptOptions {
		checks = append(checks, checkEncryptName(fmt.Sprintf("dataset spec.mounts[0].encryptOptions[%d].name", i), eo.Name))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// encryptName is an encrypt option name whose environment variable
// (envName) is a C identifier, as shells and $(VAR) references need.
var encryptName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func checkEncryptName(field, name string) error {
	if !encryptName.MatchString(name) {
		return engines.Invalid("%s: %q becomes the environment variable %q; use letters, digits, '_', '.' and '-', not starting with a digit", field, name, strings.TrimSpace(envName(name)))
	}
	return nil
}
