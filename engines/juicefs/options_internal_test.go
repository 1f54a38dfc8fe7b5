package juicefs

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sluice-data/sluice/engines"
)

// TestOptionMapping: spec.fuse.options and spec.worker.options map to
// juicefs mount's arguments the way mount.juicefs -o maps its options
// (JuiceFS v1.2.1 cmd/main.go), and anything else is refused naming the
// field and key.
func TestOptionMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
		want []string // juicefs mount's arguments
		err  string   // or the error
	}{
		{"a flag with a value", map[string]string{"cache-size": "0"}, []string{"--cache-size=0"}, ""},
		{"a bool flag without value", map[string]string{"enable-xattr": ""}, []string{"--enable-xattr"}, ""},
		{"a bool flag with a value", map[string]string{"writeback": "true"}, []string{"--writeback=true"}, ""},
		{"a global flag", map[string]string{"debug": ""}, []string{"--debug"}, ""},
		{"mount.juicefs's aliases", map[string]string{"attrcacheto": "1", "entrycacheto": "2", "direntrycacheto": "3"},
			[]string{"--attr-cache=1", "--dir-entry-cache=3", "--entry-cache=2"}, ""},
		{"FUSE options together", map[string]string{"allow_other": "", "max_read": "131072", "prefetch": "3"},
			[]string{"--prefetch=3", "-o", "allow_other,max_read=131072"}, ""},
		{"a value with $ reaches juicefs as it is", map[string]string{"custom-labels": "k:$(HOME)"}, []string{"--custom-labels=k:$$(HOME)"}, ""},
		{"an unknown name", map[string]string{"cache_size": "1"}, nil, `spec.fuse.options["cache_size"]: "cache_size" is neither a juicefs mount flag`},
		{"a format flag", map[string]string{"trash-days": "1"}, nil, `spec.fuse.options["trash-days"]`},
		{"a flag without its value", map[string]string{"cache-dir": ""}, nil, `spec.fuse.options["cache-dir"]: --cache-dir takes a value`},
		{"metrics", map[string]string{"metrics": "0.0.0.0:1"}, nil, `spec.fuse.options["metrics"]: Sluice serves metrics`},
		{"background", map[string]string{"background": ""}, nil, `spec.fuse.options["background"]: workers and FUSE run juicefs in the foreground`},
		{"subdir", map[string]string{"subdir": "/x"}, nil, `spec.fuse.options["subdir"]: the mount point's path sets it`},
		{"raw FUSE options", map[string]string{"o": "allow_other"}, nil, `spec.fuse.options["o"]: give FUSE options by name`},
		{"a FUSE option's comma", map[string]string{"max_read": "1,allow_root"}, nil, `spec.fuse.options["max_read"]: a FUSE option's value may not hold ','`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags, err := componentOptions("spec.fuse.options", tc.opts, community)
			if tc.err != "" {
				var e *engines.Error
				if !errors.As(err, &e) || e.Reason != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want InvalidSpec containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, flagArgs(layer(flags))); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDatasetOptionRouting: the Dataset's options go to juicefs format
// (storage, bucket, format flags), to juicefs mount (mount flags), to both
// (global flags, storage-class), or are refused.
func TestDatasetOptionRouting(t *testing.T) {
	for _, tc := range []struct {
		k, v          string
		format, mount []string
		err           string
	}{
		{"storage", "s3", []string{"--storage=s3"}, nil, ""},
		{"bucket", "https://b", []string{"--bucket=https://b"}, nil, ""},
		{"trash-days", "0", []string{"--trash-days=0"}, nil, ""},
		{"hash-prefix", "", []string{"--hash-prefix"}, nil, ""},
		{"buffer-size", "300", nil, []string{"--buffer-size=300"}, ""},
		{"storage-class", "STANDARD_IA", []string{"--storage-class=STANDARD_IA"}, []string{"--storage-class=STANDARD_IA"}, ""},
		{"verbose", "", []string{"--verbose"}, []string{"--verbose"}, ""},
		{"secret-key", "plain", nil, nil, `options["secret-key"]: a credential; give it in encryptOptions`},
		{"force", "", nil, nil, `options["force"]: juicefs format --force would overwrite`},
		{"compress-it", "lz4", nil, nil, `options["compress-it"]: "compress-it" is neither a juicefs format nor a juicefs mount flag`},
		{"shards", "", nil, nil, `options["shards"]: --shards takes a value`},
		{"quota", "1Mi", nil, nil, `options["quota"]: "1Mi" is below 1Gi`},
	} {
		v := volume{subdir: "/d"}
		err := v.option(`dataset spec.mounts[0].options["`+tc.k+`"]`, tc.k, tc.v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.k, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.k, err)
			continue
		}
		if diff := cmp.Diff(tc.format, flagArgs(v.setup)); diff != "" {
			t.Errorf("%s: format (-want +got):\n%s", tc.k, diff)
		}
		if diff := cmp.Diff(tc.mount, flagArgs(v.mount)); diff != "" {
			t.Errorf("%s: mount (-want +got):\n%s", tc.k, diff)
		}
	}
}
