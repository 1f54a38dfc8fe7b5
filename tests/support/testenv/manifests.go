package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/config"
)

// ApplyManifests creates every object in the embedded config files that
// match pattern (e.g. "rbac/*.yaml"), failing when fewer than min files
// match, so a renamed directory cannot pass unnoticed.
func (e *Env) ApplyManifests(ctx context.Context, pattern string, min int) error {
	files, err := fs.Glob(config.FS, pattern)
	if err != nil || len(files) < min {
		return fmt.Errorf("config/%s: %d files (want at least %d), %v", pattern, len(files), min, err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(config.FS, f)
		if err != nil {
			return err
		}
		objs, err := sluicescheme.DecodeObjects[client.Object](bytes.NewReader(data), e.Scheme)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, obj := range objs {
			if err := e.Client.Create(ctx, obj); err != nil {
				return fmt.Errorf("%s: creating %T %s: %w", f, obj, obj.GetName(), err)
			}
		}
	}
	return nil
}
