package csi

import (
	"context"

	"github.com/kubernetes-csi/csi-lib-utils/protosanitizer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	ctrl "sigs.k8s.io/controller-runtime"
)

// logRequests logs every call and its outcome, with secrets stripped from
// the request by protosanitizer.
func logRequests(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	log := ctrl.Log.WithName("csi").WithValues("method", info.FullMethod)
	log.V(1).Info("call", "request", protosanitizer.StripSecrets(req).String())
	resp, err := handler(ctx, req)
	if err != nil {
		log.Info("failed", "code", status.Code(err).String(), "error", err.Error())
	} else {
		log.V(1).Info("done")
	}
	return resp, err
}
