package controller

import (
	"context"

	"k8s.io/client-go/rest"
)

// StartLocal runs the controller in-process (for `sluice dev` and tests):
// it builds the manager from cfg and o and starts it in the background
// until ctx ends. If the manager stops with an error, stopped (when not
// nil) is called with it.
func StartLocal(ctx context.Context, cfg *rest.Config, o *Options, stopped func(error)) error {
	mgr, err := New(cfg, o)
	if err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil && stopped != nil {
			stopped(err)
		}
	}()
	return nil
}
