package scale_test

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ignoreOverloaded drops err when it is the API server answering that it
// is too busy (a request that timed out on the server, or 429): a poll of
// a loaded simulated cluster asks again at its next tick instead of
// ending the run (the floor at 5,000 Datasets ended on one). Other errors
// are returned.
func ignoreOverloaded(err error) error {
	if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err) {
		return nil
	}
	return err
}

// TestIgnoreOverloaded: a busy API server's answers are asked again,
// anything else ends the poll.
func TestIgnoreOverloaded(t *testing.T) {
	busy := []error{
		apierrors.NewTimeoutError("request did not complete within requested timeout", 0),
		apierrors.NewServerTimeout(schema.GroupResource{Resource: "pods"}, "list", 1),
		apierrors.NewTooManyRequests("slow down", 1),
		fmt.Errorf("listing: %w", apierrors.NewTimeoutError("timeout", 0)),
	}
	for _, err := range busy {
		if ignoreOverloaded(err) != nil {
			t.Errorf("%v ends the poll", err)
		}
	}
	for _, err := range []error{apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no")), errors.New("connection refused")} {
		if ignoreOverloaded(err) == nil {
			t.Errorf("%v is asked again", err)
		}
	}
}
