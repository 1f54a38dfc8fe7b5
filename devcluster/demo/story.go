package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Cluster is the dev cluster the story runs on.
type Cluster struct {
	// Client and Config reach the API server as an administrator.
	Client client.Client
	Config *rest.Config
	// Namespace is Sluice's (the platform policy ConfigMap's).
	Namespace string
	// Check reports a cluster component that has exited.
	Check func() error
	// ReloadBound is how soon the next Pod must show a policy change
	// (DefaultReloadBound when zero); a test on a loaded machine or under
	// the race detector stretches it. The webhook's reload latency is
	// measured by benchmark (webhook BenchmarkPolicyReload), not here.
	ReloadBound time.Duration
}

// story is the state the steps share.
type story struct {
	Cluster
	out   io.Writer
	start time.Time
	// cacheNodes are the nodes running the Dataset's ready workers, and
	// cacheZones their zones.
	cacheNodes, cacheZones []string
}

// Run plays the story's steps in order and returns the first failure.
func Run(ctx context.Context, c Cluster, out io.Writer) error {
	s := &story{Cluster: c, out: out, start: time.Now()}
	for i, step := range []struct {
		title string
		run   func(context.Context) error
	}{
		{"a Dataset and a JuiceFSRuntime (config/samples/demo.yaml)", s.datasetBound},
		{"a Pod reading the Dataset is placed next to its cache", s.dataAffinity},
		{"a serverless Pod gets a FUSE sidecar", s.serverless},
		{"a DataLoad runs to Complete; a second one is denied while it executes", s.dataLoad},
		{"a platform policy changes what the webhook injects", s.platformPolicy},
		{"the runtime and Dataset are deleted while a Pod uses them", s.deletion},
	} {
		fmt.Fprintf(out, "\n== step %d: %s\n", i+1, step.title)
		if err := step.run(ctx); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, step.title, err)
		}
	}
	fmt.Fprintf(out, "\ndemo: every step observed, in %s\n", time.Since(s.start).Round(time.Second))
	return nil
}

// say prints one observation, with the time since the story began.
func (s *story) say(format string, args ...any) {
	fmt.Fprintf(s.out, "  [%5.1fs] %s\n", time.Since(s.start).Seconds(), fmt.Sprintf(format, args...))
}

// waitFor polls cond every 200 ms for up to timeout; it fails naming what
// it waited for, with cond's last note, or at once if a cluster component
// exits.
func (s *story) waitFor(ctx context.Context, timeout time.Duration, what string, cond func() (done bool, note string, err error)) error {
	deadline := time.Now().Add(timeout)
	note := ""
	for {
		if s.Check != nil {
			if err := s.Check(); err != nil {
				return err
			}
		}
		done, n, err := cond()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if done {
			return nil
		}
		note = n
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not observed within %v (last seen: %s)", what, timeout, note)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
