package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestKubeconfigFlag shows every cluster subcommand takes the root
// command's --kubeconfig: a missing file is reported naming it, and a good
// one is what the subcommand connects with.
func TestKubeconfigFlag(t *testing.T) {
	for _, args := range [][]string{
		{"controller", "--kubeconfig", "/nonexistent/kubeconfig"},
		{"webhook", "--kubeconfig", "/nonexistent/kubeconfig"},
		{"csi", "--kubeconfig", "/nonexistent/kubeconfig", "--nodeid", "n", "--endpoint", "unix:///tmp/sluice-x.sock", "--state-dir", t.TempDir()},
	} {
		root := newRootCommand()
		root.SetArgs(args)
		root.SetOut(&bytes.Buffer{})
		err := root.ExecuteContext(t.Context())
		if err == nil || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
			t.Errorf("sluice %s: error %v, want one naming the kubeconfig", args[0], err)
		}
	}

	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://192.0.2.7:6443"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	flags := &clusterFlags{kubeconfig: path}
	rc, err := flags.connect()
	if err != nil || rc.Host != "https://192.0.2.7:6443" || rc.BearerToken != "t" {
		t.Fatalf("connect() = %+v, %v; want the kubeconfig's cluster and token", rc, err)
	}
	_ = os.Remove(path)
}
