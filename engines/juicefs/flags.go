package juicefs

// The flags of JuiceFS community edition v1.2.1 (the default image,
// ce-v1.2.1), as github.com/juicedata/juicefs defines them at tag v1.2.1
// in cmd/flags.go, cmd/format.go, cmd/mount.go and cmd/mount_unix.go: the
// name of each flag (aliases included) and whether it is a bool flag,
// which takes no value. TestFlagTablesMatchJuiceFS compares them with
// testdata/juicefs-v1.2.1-flags.txt, extracted from that source.

// globalFlags are juicefs's global flags, which every command takes.
var globalFlags = map[string]bool{
	"verbose":   true,
	"quiet":     true,
	"trace":     true,
	"log-level": false,
	"log-id":    false,
	"no-agent":  true,
	"pyroscope": false,
	"no-color":  true,
	"debug":     true,
	"v":         true,
	"q":         true,
}

// formatFlags are juicefs format's own flags.
var formatFlags = map[string]bool{
	"force":           true,
	"no-update":       true,
	"storage":         false,
	"bucket":          false,
	"access-key":      false,
	"secret-key":      false,
	"session-token":   false,
	"storage-class":   false,
	"block-size":      false,
	"compress":        false,
	"encrypt-rsa-key": false,
	"encrypt-algo":    false,
	"hash-prefix":     true,
	"shards":          false,
	"capacity":        false,
	"inodes":          false,
	"trash-days":      false,
	"enable-acl":      true,
}

// mountFlags are juicefs mount's own flags.
var mountFlags = map[string]bool{
	"storage":                false,
	"bucket":                 false,
	"storage-class":          false,
	"get-timeout":            false,
	"put-timeout":            false,
	"io-retries":             false,
	"max-uploads":            false,
	"max-stage-write":        false,
	"max-deletes":            false,
	"upload-limit":           false,
	"download-limit":         false,
	"buffer-size":            false,
	"prefetch":               false,
	"writeback":              true,
	"upload-delay":           false,
	"upload-hours":           false,
	"cache-dir":              false,
	"cache-mode":             false,
	"cache-size":             false,
	"free-space-ratio":       false,
	"cache-partial-only":     true,
	"verify-cache-checksum":  false,
	"cache-eviction":         false,
	"cache-scan-interval":    false,
	"cache-expire":           false,
	"subdir":                 false,
	"backup-meta":            false,
	"backup-skip-trash":      true,
	"heartbeat":              false,
	"read-only":              true,
	"no-bgjob":               true,
	"atime-mode":             false,
	"skip-dir-nlink":         false,
	"skip-dir-mtime":         false,
	"metrics":                false,
	"custom-labels":          false,
	"consul":                 false,
	"no-usage-report":        true,
	"attr-cache":             false,
	"entry-cache":            false,
	"dir-entry-cache":        false,
	"open-cache":             false,
	"open-cache-limit":       false,
	"enable-xattr":           true,
	"enable-ioctl":           true,
	"root-squash":            false,
	"prefix-internal":        true,
	"non-default-permission": true,
	"o":                      false,
	"d":                      true,
	"no-syslog":              true,
	"log":                    false,
	"force":                  true,
	"update-fstab":           true,
	"background":             true,
}

// isBoolFlag says whether name is a flag of cmd (format or mount, global
// flags included) and whether it is a bool flag.
func isBoolFlag(cmd map[string]bool, name string) (isBool, known bool) {
	if b, ok := cmd[name]; ok {
		return b, true
	}
	b, ok := globalFlags[name]
	return b, ok
}
