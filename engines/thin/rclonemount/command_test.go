package rclonemount_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/engines/thin/rclonemount"
)

func config() thin.FuseConfig {
	return thin.FuseConfig{
		TargetPath: "/runtime-mnt/thin/team-a/photos/thin-fuse",
		Mounts: []thin.ConfigMount{{MountPoint: "s3://photos/2024/raw", Path: "/", Options: map[string]string{
			"provider": "Other", "endpoint": "http://minio.storage:9000", "force_path_style": "true",
			"access_key_id":     thin.SecretFile("photos-s3", "access"),
			"secret_access_key": thin.SecretFile("photos-s3", "secret"),
		}}},
		RuntimeOptions: map[string]string{"vfs-cache-max-size": "9G", "dir_cache_time": "1m"},
		AccessModes:    []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
	}
}

func secrets(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		v, ok := files[p]
		if !ok {
			return nil, os.ErrNotExist
		}
		return []byte(v), nil
	}
}

var files = map[string]string{
	thin.SecretFile("photos-s3", "access"): "AKIA-EXAMPLE",
	thin.SecretFile("photos-s3", "secret"): "s3cr3t $(x) `y`\n",
}

// TestBuild: the bucket and prefix become the remote, options become
// flags after the profile's, credentials go to the environment only.
func TestBuild(t *testing.T) {
	c, err := rclonemount.Build(config(), thin.SecretRoot, []string{"--vfs-cache-mode=full", "--cache-dir=/var/cache/rclone"}, secrets(files))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mount2", ":s3:photos/2024/raw", "/runtime-mnt/thin/team-a/photos/thin-fuse", "--read-only",
		"--vfs-cache-mode=full", "--cache-dir=/var/cache/rclone",
		"--s3-endpoint=http://minio.storage:9000", "--s3-force-path-style=true", "--s3-provider=Other",
		"--dir-cache-time=1m", "--vfs-cache-max-size=9G"}
	if diff := cmp.Diff(want, c.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	wantEnv := []string{"RCLONE_S3_ACCESS_KEY_ID=AKIA-EXAMPLE", "RCLONE_S3_SECRET_ACCESS_KEY=s3cr3t $(x) `y`"}
	if diff := cmp.Diff(wantEnv, c.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "s3cr3t") || strings.Contains(a, "AKIA") {
			t.Errorf("a credential reached the command line: %q", a)
		}
	}
}

// TestBuildWritable: a Dataset a Pod may write is mounted read-write; a
// read-only mount is read-only whatever the access modes.
func TestBuildWritable(t *testing.T) {
	cfg := config()
	cfg.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	cfg.Mounts[0].MountPoint = "s3://photos"
	c, err := rclonemount.Build(cfg, thin.SecretRoot, nil, secrets(files))
	if err != nil {
		t.Fatal(err)
	}
	if c.Args[1] != ":s3:photos" || c.Args[3] == "--read-only" {
		t.Errorf("args %q: want the whole bucket, writable", c.Args)
	}
	cfg.Mounts[0].ReadOnly = true
	if c, _ = rclonemount.Build(cfg, thin.SecretRoot, nil, secrets(files)); c.Args[3] != "--read-only" {
		t.Errorf("args %q: a readOnly mount must be mounted --read-only", c.Args)
	}
}

// TestBuildRefuses: what the program cannot honour is refused, naming the
// field, never dropped.
func TestBuildRefuses(t *testing.T) {
	cases := map[string]struct {
		edit func(*thin.FuseConfig)
		want string
	}{
		"two mounts": {func(c *thin.FuseConfig) { c.Mounts = append(c.Mounts, c.Mounts[0]) }, "spec.mounts has 2 mounts"},
		"no mounts":  {func(c *thin.FuseConfig) { c.Mounts = nil }, "spec.mounts has 0 mounts"},
		"named path": {func(c *thin.FuseConfig) { c.Mounts[0].Path = "/photos" }, "would appear at /photos"},
		"not s3":     {func(c *thin.FuseConfig) { c.Mounts[0].MountPoint = "gs://photos" }, "mounts s3://bucket"},
		"port":       {func(c *thin.FuseConfig) { c.Mounts[0].MountPoint = "s3://photos:9000/x" }, "no user, port"},
		"bucket":     {func(c *thin.FuseConfig) { c.Mounts[0].MountPoint = "s3://Photos_1" }, "not an S3 bucket name"},
		"control":    {func(c *thin.FuseConfig) { c.Mounts[0].MountPoint = "s3://photos/a%0Ab" }, "control character"},
		"option name": {func(c *thin.FuseConfig) { c.Mounts[0].Options["--endpoint"] = "x" },
			`spec.mounts[0].options["--endpoint"]: not an rclone option name`},
		"option value": {func(c *thin.FuseConfig) { c.Mounts[0].Options["region"] = "a\nb" },
			`spec.mounts[0].options["region"]: the value has a line break`},
		"runtime option": {func(c *thin.FuseConfig) { c.RuntimeOptions["Cache Dir"] = "/x" },
			`spec.fuse.options["Cache Dir"]: not an rclone option name`},
		"plain credential": {func(c *thin.FuseConfig) { c.Mounts[0].Options["secret_access_key"] = "s3cr3t" },
			`option "secret_access_key" is a credential: give it as an encrypt option`},
		"other secret": {func(c *thin.FuseConfig) {
			c.Mounts[0].Options["sse_customer_key"] = thin.SecretFile("photos-s3", "sse")
		},
			`encrypt option "sse_customer_key": the rclone profile reads only access_key_id, secret_access_key, session_token`},
		"missing secret file": {func(c *thin.FuseConfig) { c.Mounts[0].Options["session_token"] = thin.SecretFile("photos-s3", "token") },
			`encrypt option "session_token": reading its Secret file`},
		"target": {func(c *thin.FuseConfig) { c.TargetPath = "" }, "targetPath"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := config()
			tc.edit(&cfg)
			_, err := rclonemount.Build(cfg, thin.SecretRoot, nil, secrets(files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	empty := map[string]string{thin.SecretFile("photos-s3", "access"): "\n", thin.SecretFile("photos-s3", "secret"): "x"}
	if _, err := rclonemount.Build(config(), thin.SecretRoot, nil, secrets(empty)); err == nil || !strings.Contains(err.Error(), `"access_key_id": its Secret file`) {
		t.Errorf("an empty Secret file: %v", err)
	}
}

// TestLoad reads the JSON the chart writes.
func TestLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(file, []byte(`{"mounts":[{"mountPoint":"s3://photos","path":"/"}],"targetPath":"/t","accessModes":["ReadOnlyMany"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := rclonemount.Load(file)
	if err != nil || cfg.TargetPath != "/t" || len(cfg.Mounts) != 1 || cfg.Mounts[0].MountPoint != "s3://photos" {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	if _, err := rclonemount.Load(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing config: %v", err)
	}
	if err := os.WriteFile(file, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rclonemount.Load(file); err == nil || !strings.Contains(err.Error(), "decoding the Thin FUSE config") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestBuildSecretRoot: encrypt options are the files under the given
// Secret root, wherever the pod mounts it.
func TestBuildSecretRoot(t *testing.T) {
	moved := map[string]string{"/run/s/photos-s3/access": "AKIA-EXAMPLE", "/run/s/photos-s3/secret": "s3cr3t"}
	cfg := config()
	cfg.Mounts[0].Options["access_key_id"] = "/run/s/photos-s3/access"
	cfg.Mounts[0].Options["secret_access_key"] = "/run/s/photos-s3/secret"
	c, err := rclonemount.Build(cfg, "/run/s", nil, secrets(moved))
	if err != nil || !slices.Equal(c.Env, []string{"RCLONE_S3_ACCESS_KEY_ID=AKIA-EXAMPLE", "RCLONE_S3_SECRET_ACCESS_KEY=s3cr3t"}) {
		t.Fatalf("env %q, %v", c.Env, err)
	}
	if _, err := rclonemount.Build(cfg, thin.SecretRoot, nil, secrets(moved)); err == nil || !strings.Contains(err.Error(), "is a credential") {
		t.Errorf("files outside the Secret root must not be read as credentials: %v", err)
	}
}
