package csi

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/go-logr/logr/funcr"
	"google.golang.org/grpc"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestInterceptorNeverLogsSecrets(t *testing.T) {
	var buf bytes.Buffer
	ctrl.SetLogger(funcr.New(func(prefix, args string) { buf.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 2}))
	req := &csi.NodeStageVolumeRequest{VolumeId: "v", Secrets: map[string]string{"token": "s3cr3t-value"}}
	_, _ = logRequests(context.Background(), req, &grpc.UnaryServerInfo{FullMethod: "/csi.v1.Node/NodeStageVolume"},
		func(context.Context, any) (any, error) { return &csi.NodeStageVolumeResponse{}, nil })
	out := buf.String()
	if !strings.Contains(out, "NodeStageVolume") {
		t.Fatalf("the call was not logged: %q", out)
	}
	if strings.Contains(out, "s3cr3t-value") {
		t.Fatalf("a secret reached the log: %q", out)
	}
}
