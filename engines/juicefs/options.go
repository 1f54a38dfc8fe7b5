package juicefs

import (
	"maps"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// flag is one command-line flag: --name=value, or --name for a bool flag
// without a value. A Secret value is a $(VAR) reference the kubelet
// expands; every other value reaches the process as it is.
type flag struct {
	Name, Value string
	Bool        bool
	Secret      bool
}

// arg is the flag as one argument of a container's command.
func (f flag) arg() string {
	if f.Bool && f.Value == "" {
		return dataop.NoExpand("--" + f.Name)
	}
	v := f.Value
	if !f.Secret {
		v = dataop.NoExpand(v)
	}
	return dataop.NoExpand("--"+f.Name+"=") + v
}

// option is the flag as one mount.juicefs -o option (name or name=value),
// before kubelet escaping.
func (f flag) option() string {
	if f.Value == "" {
		return f.Name
	}
	return f.Name + "=" + f.Value
}

// valueFlag is option k=val as a flag: a bool flag may go without a value,
// any other needs one (JuiceFS refuses it otherwise).
func valueFlag(field, k, val string, isBool bool) (flag, error) {
	if val == "" && !isBool {
		return flag{}, engines.Invalid("%s: --%s takes a value", field, k)
	}
	return flag{Name: k, Value: val, Bool: isBool}, nil
}

// mountOptionAliases are the option names mount.juicefs renames to flags
// (JuiceFS v1.2.1 cmd/main.go, handleSysMountArgs).
var mountOptionAliases = map[string]string{"attrcacheto": "attr-cache", "entrycacheto": "entry-cache", "direntrycacheto": "dir-entry-cache"}

// fuseOptions are the FUSE options JuiceFS handles or passes to the kernel
// (JuiceFS v1.2.1 pkg/fuse/fuse.go: allow_other, allow_root, nonempty, ro,
// writeback_cache; the kernel's default_permissions, max_read, blksize),
// which mount.juicefs -o takes by name.
var fuseOptions = []string{"allow_other", "allow_root", "nonempty", "ro", "writeback_cache", "default_permissions", "max_read", "blksize"}

// ownMountFlags are the mount flags Sluice sets itself, refused in options
// with the reason.
var ownMountFlags = map[string]string{
	"metrics":    "Sluice serves metrics on 0.0.0.0:9567, the port the cache states are read from (spec.disablePrometheus keeps them on localhost)",
	"d":          "workers and FUSE run juicefs in the foreground, as the container's process",
	"background": "workers and FUSE run juicefs in the foreground, as the container's process",
	"subdir":     "the mount point's path sets it: juicefs:///<sub-directory>",
	"o":          "give FUSE options by name (allow_other, ...), as mount.juicefs -o takes them",
	"_netdev":    "a mount(8) option that JuiceFS ignores",
	"rw":         "a mount(8) option that JuiceFS ignores",
	"defaults":   "a mount(8) option that JuiceFS ignores",
	"remount":    "a mount(8) option that JuiceFS ignores",
}

// fuseOptionPrefix marks a FUSE option in a flag list: they are passed
// together as -o a,b=c.
const fuseOptionPrefix = "fuse:"

// mountFlag maps option k=val the way mount.juicefs -o maps its options
// (Fluid passes options there): a juicefs mount or global flag becomes
// --k=val (--k for a bool flag without value), attrcacheto and its kin
// become their flags, and a FUSE option stays a FUSE option. Anything else
// is refused, naming the field and key.
func mountFlag(field, k, val string) ([]flag, error) {
	if why, ok := ownMountFlags[k]; ok {
		return nil, engines.Invalid("%s: %s", field, why)
	}
	if alias, ok := mountOptionAliases[k]; ok {
		k = alias
	}
	if isBool, ok := isBoolFlag(mountFlags, k); ok {
		f, err := valueFlag(field, k, val, isBool)
		return []flag{f}, err
	}
	if slices.Contains(fuseOptions, k) {
		if strings.Contains(val, ",") {
			return nil, engines.Invalid("%s: a FUSE option's value may not hold ',', which separates FUSE options", field)
		}
		return []flag{{Name: fuseOptionPrefix + k, Value: val}}, nil
	}
	return nil, engines.Invalid("%s: %q is neither a juicefs mount flag (JuiceFS v1.2.1) nor a FUSE option JuiceFS takes (%s)", field, k, strings.Join(fuseOptions, ", "))
}

// eeOption is option k=val as a mount.juicefs -o option of the enterprise
// client, whose flags are not published as source: only what would break
// the comma-separated list is refused.
func eeOption(field, k, val string) (flag, error) {
	if strings.ContainsAny(k, ",=") || strings.Contains(val, ",") {
		return flag{}, engines.Invalid("%s: mount.juicefs -o separates options with ',' and names from values with '='; neither may appear in %q=%q", field, k, val)
	}
	return flag{Name: k, Value: val}, nil
}

// componentOptions maps spec.worker.options or spec.fuse.options.
func componentOptions(field string, opts map[string]string, ed edition) ([]flag, error) {
	var out []flag
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		f := field + "[\"" + k + "\"]"
		if ed == enterprise {
			o, err := eeOption(f, k, opts[k])
			if err != nil {
				return nil, err
			}
			out = append(out, o)
			continue
		}
		fs, err := mountFlag(f, k, opts[k])
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// layer merges flag lists by name, a later list's flag replacing an
// earlier one in place; the result is sorted by name.
func layer(lists ...[]flag) []flag {
	byName := map[string]flag{}
	for _, l := range lists {
		for _, f := range l {
			byName[f.Name] = f
		}
	}
	out := make([]flag, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[k])
	}
	return out
}

// flagArgs renders community-edition flags: --name[=value] each, then the
// FUSE options as one -o a,b=c.
func flagArgs(fs []flag) []string {
	var out, fuse []string
	for _, f := range fs {
		if name, ok := strings.CutPrefix(f.Name, fuseOptionPrefix); ok {
			f.Name = name
			fuse = append(fuse, f.option())
			continue
		}
		out = append(out, f.arg())
	}
	if len(fuse) > 0 {
		out = append(out, "-o", dataop.NoExpand(strings.Join(fuse, ",")))
	}
	return out
}

// optionList renders enterprise-edition options as mount.juicefs's one -o
// argument.
func optionList(fs []flag) string {
	opts := make([]string, len(fs))
	for i, f := range fs {
		opts[i] = f.option()
	}
	return dataop.NoExpand(strings.Join(opts, ","))
}
