package rclonemount

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/thin"
)

// Credentials are the encrypt option names the program accepts, each with
// the environment variable of rclone's S3 backend it sets. Credentials go
// through the environment, never the command line.
var Credentials = map[string]string{
	"access_key_id":     "RCLONE_S3_ACCESS_KEY_ID",
	"secret_access_key": "RCLONE_S3_SECRET_ACCESS_KEY",
	"session_token":     "RCLONE_S3_SESSION_TOKEN",
}

// Command is the rclone command line to run and the environment variables
// to add to the program's own.
type Command struct {
	Args []string
	Env  []string
}

var (
	// optionName is an rclone option as an option map may name it:
	// lower case words joined by _ or -.
	optionName = regexp.MustCompile(`^[a-z0-9]+([_-][a-z0-9]+)*$`)
	// bucketName follows S3's bucket naming rules.
	bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
)

// Build turns the Thin FUSE config into the rclone command line:
//
//	mount2 :s3:<bucket>[/<prefix>] <targetPath> [--read-only] <extra...> --s3-<option>=<value>... --<runtime option>=<value>...
//
// extra are the profile's arguments; the mount's options follow as rclone's
// S3 backend flags and the runtime's fuse options as rclone flags, each name
// lower case with _ written -, sorted, so rclone itself refuses a name it
// does not know. An option whose value is a file under secretRoot is an
// encrypt option: those named in Credentials are read from their Secret
// files (readFile) into the environment; any other one is refused, as is
// every option the program cannot pass as a flag.
func Build(cfg thin.FuseConfig, secretRoot string, extra []string, readFile func(string) ([]byte, error)) (Command, error) {
	secretRoot = path.Clean(secretRoot) + "/"
	if len(cfg.Mounts) != 1 {
		return Command{}, fmt.Errorf("spec.mounts has %d mounts; the rclone profile mounts exactly one s3:// bucket", len(cfg.Mounts))
	}
	m := cfg.Mounts[0]
	if m.Path != "/" {
		return Command{}, fmt.Errorf("spec.mounts[0] (%s) would appear at %s; the rclone profile mounts its bucket at the dataset's root: set path: /", m.MountPoint, m.Path)
	}
	remote, err := remotePath(m.MountPoint)
	if err != nil {
		return Command{}, err
	}
	if strings.TrimSpace(cfg.TargetPath) == "" || !path.IsAbs(cfg.TargetPath) {
		return Command{}, fmt.Errorf("the FUSE config's targetPath %q is not an absolute path", cfg.TargetPath)
	}
	args := []string{"mount2", remote, cfg.TargetPath}
	if m.ReadOnly || readOnly(cfg.AccessModes) {
		args = append(args, "--read-only")
	}
	args = append(args, extra...)
	var env []string
	for _, name := range sortedKeys(m.Options) {
		value := m.Options[name]
		if variable, ok := Credentials[strings.ReplaceAll(name, "-", "_")]; ok {
			secret, err := secretValue(name, value, secretRoot, readFile)
			if err != nil {
				return Command{}, err
			}
			env = append(env, variable+"="+secret)
			continue
		}
		if strings.HasPrefix(value, secretRoot) {
			return Command{}, fmt.Errorf("spec.mounts[0] encrypt option %q: the rclone profile reads only %s from Secrets", name, strings.Join(sortedKeys(Credentials), ", "))
		}
		flag, err := flagOf("spec.mounts[0].options", name, value)
		if err != nil {
			return Command{}, err
		}
		args = append(args, "--s3-"+flag)
	}
	for _, name := range sortedKeys(cfg.RuntimeOptions) {
		flag, err := flagOf("spec.fuse.options", name, cfg.RuntimeOptions[name])
		if err != nil {
			return Command{}, err
		}
		args = append(args, "--"+flag)
	}
	return Command{Args: args, Env: env}, nil
}

// Load reads the FUSE config at file.
func Load(file string) (thin.FuseConfig, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return thin.FuseConfig{}, fmt.Errorf("reading the Thin FUSE config: %w", err)
	}
	var cfg thin.FuseConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return thin.FuseConfig{}, fmt.Errorf("decoding the Thin FUSE config %s: %w", file, err)
	}
	return cfg, nil
}

// remotePath is rclone's on-the-fly S3 remote for s3://bucket[/prefix].
func remotePath(mountPoint string) (string, error) {
	u, err := url.Parse(mountPoint)
	if err != nil {
		return "", fmt.Errorf("spec.mounts[0].mountPoint %q: %w", mountPoint, err)
	}
	if u.Scheme != "s3" {
		return "", fmt.Errorf("spec.mounts[0].mountPoint %q: the rclone profile mounts s3://bucket[/prefix]", mountPoint)
	}
	if u.User != nil || u.Port() != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("spec.mounts[0].mountPoint %q: want s3://bucket[/prefix] with no user, port, query or fragment (the endpoint is the option endpoint)", mountPoint)
	}
	if !bucketName.MatchString(u.Host) {
		return "", fmt.Errorf("spec.mounts[0].mountPoint %q: %q is not an S3 bucket name (3 to 63 of a-z, 0-9, . and -)", mountPoint, u.Host)
	}
	prefix := strings.Trim(u.Path, "/")
	for _, r := range prefix {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("spec.mounts[0].mountPoint %q: the prefix has a control character", mountPoint)
		}
	}
	if prefix == "" {
		return ":s3:" + u.Host, nil
	}
	return ":s3:" + u.Host + "/" + prefix, nil
}

// secretValue reads the Secret file an encrypt option points at.
func secretValue(name, file, secretRoot string, readFile func(string) ([]byte, error)) (string, error) {
	if !strings.HasPrefix(file, secretRoot) {
		return "", fmt.Errorf("spec.mounts[0] option %q is a credential: give it as an encrypt option (a Secret), not a plain option", name)
	}
	data, err := readFile(file)
	if err != nil {
		return "", fmt.Errorf("encrypt option %q: reading its Secret file: %w", name, err)
	}
	value := strings.TrimRight(string(data), "\r\n")
	if value == "" || strings.ContainsAny(value, "\x00\r\n") {
		return "", fmt.Errorf("encrypt option %q: its Secret file %s is empty or holds more than one line", name, file)
	}
	return value, nil
}

// flagOf is name=value as an rclone flag without its dashes.
func flagOf(field, name, value string) (string, error) {
	if !optionName.MatchString(name) {
		return "", fmt.Errorf("%s[%q]: not an rclone option name (lower case words joined by _ or -)", field, name)
	}
	if strings.ContainsAny(value, "\x00\r\n") {
		return "", fmt.Errorf("%s[%q]: the value has a line break or NUL", field, name)
	}
	return strings.ReplaceAll(name, "_", "-") + "=" + value, nil
}

// readOnly is true when no access mode lets a Pod write.
func readOnly(modes []corev1.PersistentVolumeAccessMode) bool {
	for _, m := range modes {
		if m != corev1.ReadOnlyMany {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
