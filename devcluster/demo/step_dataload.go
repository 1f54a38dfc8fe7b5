package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// kwokCompleteDelay is the annotation kwok's pod-complete stage
// (bin/kwok-stages.yaml) reads for how long a Job's Pod runs before kwok
// completes it.
const (
	kwokCompleteDelay = "pod-complete.stage.kwok.x-k8s.io/delay"
	// kwokCompleteJitter bounds the random extra delay (default 5 s).
	kwokCompleteJitter = "pod-complete.stage.kwok.x-k8s.io/jitter-delay"
)

// dataLoad applies config/samples/operations/dataload.yaml. Its Job's Pod
// is annotated (through the DataLoad's podMetadata) so that kwok completes
// it after 20 s instead of its default 1–6 s: long enough to try a second
// DataLoad while the first executes, which the validating webhook denies
// naming the first. Then the first runs to Complete.
func (s *story) dataLoad(ctx context.Context) error {
	objs, err := samples("samples/operations/dataload.yaml")
	if err != nil {
		return err
	}
	load, ok := objs[0].(*datav1alpha1.DataLoad)
	if !ok {
		return fmt.Errorf("config/samples/operations/dataload.yaml holds a %T, not a DataLoad", objs[0])
	}
	load.Namespace = ns
	load.Spec.PodMetadata.Annotations = map[string]string{kwokCompleteDelay: "20000", kwokCompleteJitter: "20000"}
	if err := s.Client.Create(ctx, load); err != nil {
		return fmt.Errorf("creating DataLoad %s: %w", load.Name, err)
	}
	s.say("applied DataLoad %s; its Pod is annotated %s=20000 so that kwok completes it later than its default 1-6 s", load.Name, kwokCompleteDelay)
	if err := s.operationPhase(ctx, load, datav1alpha1.PhaseExecuting, 60*time.Second); err != nil {
		return err
	}
	executing := time.Now()
	s.say("DataLoad %s is Executing (its Job runs)", load.Name)

	second := &datav1alpha1.DataLoad{}
	second.Name, second.Namespace = load.Name+"-again", ns
	second.Spec = *load.Spec.DeepCopy()
	second.Spec.PodMetadata = datav1alpha1.PodMetadata{}
	err = s.Client.Create(ctx, second)
	if err == nil {
		return fmt.Errorf("a second DataLoad was admitted while %s executes", load.Name)
	}
	if !strings.Contains(err.Error(), load.Name) {
		return fmt.Errorf("the second DataLoad was denied without naming %s: %w", load.Name, err)
	}
	s.say("a second DataLoad %s is denied: %v", second.Name, err)

	if err := s.operationPhase(ctx, load, datav1alpha1.PhaseComplete, 90*time.Second); err != nil {
		return err
	}
	s.say("DataLoad %s is Complete (kwok completed its Job's Pod %s after it started executing)", load.Name, time.Since(executing).Round(100*time.Millisecond))
	if err := s.datasetFree(ctx); err != nil {
		return err
	}
	s.say("the Dataset's claim is released")
	// Its Job and Pod go with it (the Pod mounts the Dataset's PVC).
	return s.deleteAndWait(ctx, []client.Object{load})
}

// operationPhase waits for the operation to reach phase, failing at once
// if it fails.
func (s *story) operationPhase(ctx context.Context, op *datav1alpha1.DataLoad, phase datav1alpha1.Phase, timeout time.Duration) error {
	return s.waitFor(ctx, timeout, fmt.Sprintf("DataLoad %s to be %s", op.Name, phase), func() (bool, string, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(op), op); err != nil {
			return false, "", err
		}
		if op.Status.Phase == datav1alpha1.PhaseFailed && phase != datav1alpha1.PhaseFailed {
			return false, "", fmt.Errorf("DataLoad %s Failed: %v", op.Name, op.Status.Conditions)
		}
		return op.Status.Phase == phase, fmt.Sprintf("phase %q", op.Status.Phase), nil
	})
}

// datasetFree waits for the Dataset to hold no operation's claim.
func (s *story) datasetFree(ctx context.Context) error {
	ds := &datav1alpha1.Dataset{}
	return s.waitFor(ctx, 30*time.Second, "the Dataset's claim to be released", func() (bool, string, error) {
		if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, ds); err != nil {
			return false, "", err
		}
		return len(ds.Status.OperationRef) == 0, fmt.Sprintf("operationRef %v", ds.Status.OperationRef), nil
	})
}
