package juicefs

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

func TestParseUsage(t *testing.T) {
	page := `# HELP juicefs_used_space Total used space in bytes.
# TYPE juicefs_used_space gauge
juicefs_used_space{mp="/runtime-mnt/juicefs/ns/d/juicefs-fuse",vol_name="v"} 1.073741824e+10
# HELP juicefs_used_inodes Total used number of inodes.
# TYPE juicefs_used_inodes gauge
juicefs_used_inodes{mp="/runtime-mnt/juicefs/ns/d/juicefs-fuse",vol_name="v"} 1152
# TYPE juicefs_blockcache_bytes gauge
juicefs_blockcache_bytes{mp="/m",vol_name="v"} 4096
`
	u, ok, err := ParseUsage(strings.NewReader(page))
	if err != nil || !ok || u != (engines.UFSUsage{Bytes: 10 << 30, Files: 1152}) {
		t.Errorf("ParseUsage = %+v, %v, %v", u, ok, err)
	}
	// Two series of one volume (a client that mounted it twice): the
	// largest, not their sum.
	if u, ok, err := ParseUsage(strings.NewReader(strings.Replace(page, "1152\n", "1152\njuicefs_used_inodes{mp=\"/other\",vol_name=\"v\"} 1000\n", 1))); err != nil || !ok || u.Files != 1152 {
		t.Errorf("two series: ParseUsage = %+v, %v, %v; want the largest", u, ok, err)
	}
	// A page without the file-system families reports nothing, which is
	// no error (the enterprise client names its figures otherwise).
	if u, ok, err := ParseUsage(strings.NewReader(juicefsCacheOnly)); err != nil || ok {
		t.Errorf("a page without usage: %+v, %v, %v; want not reported", u, ok, err)
	}
	if _, _, err := ParseUsage(strings.NewReader("juicefs_used_space{ 3\n")); err == nil {
		t.Error("a malformed page parsed")
	}
	if _, _, err := ParseUsage(strings.NewReader("juicefs_used_space NaN\njuicefs_used_inodes 1\n")); err == nil {
		t.Error("a NaN used space was taken as a size")
	}
}

const juicefsCacheOnly = `# TYPE juicefs_blockcache_bytes gauge
juicefs_blockcache_bytes 4096
`

func TestUFSMetadata(t *testing.T) {
	rt := &datav1alpha1.JuiceFSRuntime{}
	rt.Name = "d"
	src := Engine{}.UFSMetadata(rt)
	if !src.Sync || src.Pages == nil || src.Pages.Selector["role"] != "juicefs-worker" || src.Pages.PortName != "metrics" {
		t.Errorf("default: %+v; want sync on, read from the workers' metrics", src)
	}
	rt.Spec.DisablePrometheus = true
	if src := (Engine{}).UFSMetadata(rt); !src.Sync || src.Pages != nil {
		t.Errorf("disablePrometheus: %+v; want a metadata Job (no pages)", src)
	}
	rt.Spec.Management.MetadataSyncPolicy.AutoSync = ptr.To(false)
	if src := (Engine{}).UFSMetadata(rt); src.Sync {
		t.Errorf("autoSync false: %+v; want off", src)
	}
}
