package webhook

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// nativeSidecarMinor is the first Kubernetes 1.x minor release that runs
// init containers with restartPolicy Always as sidecars by default.
const nativeSidecarMinor = 29

// nativeSidecars resolves the --native-sidecars option; auto asks the API
// server for its version.
func nativeSidecars(mode string, cfg *rest.Config) (bool, error) {
	switch strings.ToLower(mode) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return false, err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return false, fmt.Errorf("reading the server version for --native-sidecars=auto: %w", err)
	}
	return supportsNativeSidecars(v.Major, v.Minor), nil
}

func supportsNativeSidecars(major, minor string) bool {
	ma, err := strconv.Atoi(strings.TrimRight(major, "+"))
	if err != nil {
		return false
	}
	mi, err := strconv.Atoi(strings.TrimRight(minor, "+"))
	if err != nil {
		return false
	}
	return ma > 1 || (ma == 1 && mi >= nativeSidecarMinor)
}
