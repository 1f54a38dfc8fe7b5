package cachetrim

import (
	"go/ast"
	"go/constant"
	"go/types"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// field is a struct field: the struct's type name (of k8s.io/api/core/v1
// or metav1.ObjectMeta) and the field's name.
type field struct{ typ, name string }

func (f field) String() string { return f.typ + "." + f.name }

// reads are what the controller's code reads from Pods, found in its
// source: the fields of every type a Pod is made of (corev1.Pod,
// PodSpec, Container, ...) that the code selects, ObjectMeta's only when
// selected on a Pod, and the constant annotation keys it looks up on a
// Pod, a PVC or an object of unknown kind.
type reads struct {
	fields      map[field][]string // where
	annotations map[string][]string
}

// scanned are the packages whose code handles the controller's cached
// Pods: the controller's, and every engine package with a function that
// takes a Pod (checked by TestScannedPackagesTakeEveryPod).
var scannedPatterns = []string{"github.com/sluice-data/sluice/controller/...", "github.com/sluice-data/sluice/engines/..."}

var loaded struct {
	pkgs []*packages.Package
	err  error
}

func load(t *testing.T) []*packages.Package {
	t.Helper()
	if loaded.pkgs == nil && loaded.err == nil {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax, Dir: "../.."}
		loaded.pkgs, loaded.err = packages.Load(cfg, scannedPatterns...)
	}
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	for _, p := range loaded.pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	return loaded.pkgs
}

const corePath, metaPath = "k8s.io/api/core/v1", "k8s.io/apimachinery/pkg/apis/meta/v1"

// podTypes are the core/v1 struct types a Pod is made of.
func podTypes() map[string]bool {
	out := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != corePath || out[t.Name()] {
			return
		}
		out[t.Name()] = true
		for i := 0; i < t.NumField(); i++ {
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeOf(corev1.Pod{}))
	return out
}

// takesPods says whether a package declares a function with a parameter
// of type Pod, *Pod or []Pod.
func takesPods(p *packages.Package) bool {
	for _, obj := range p.TypesInfo.Defs {
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		params := fn.Type().(*types.Signature).Params()
		for i := 0; i < params.Len(); i++ {
			if isNamed(deref(params.At(i).Type()), corePath, "Pod") {
				return true
			}
		}
	}
	return false
}

func deref(t types.Type) types.Type {
	for {
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		default:
			return t
		}
	}
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// scan collects the reads of the packages that handle Pods.
func scan(t *testing.T) reads {
	t.Helper()
	pod := podTypes()
	r := reads{fields: map[field][]string{}, annotations: map[string][]string{}}
	for _, p := range load(t) {
		if !strings.HasPrefix(p.PkgPath, "github.com/sluice-data/sluice/controller") && !takesPods(p) ||
			p.PkgPath == "github.com/sluice-data/sluice/controller/cachetrim" { // the trim's reads are its copy and its own check
			continue
		}
		info := p.TypesInfo
		// Variables bound to an object's annotations (a := o.GetAnnotations()).
		annVars := map[types.Object]bool{}
		written := map[ast.Expr]bool{} // assignment targets: writes, not reads
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok {
					for _, l := range as.Lhs {
						written[l] = true
					}
				}
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
					for i, rhs := range as.Rhs {
						if id, ok := as.Lhs[i].(*ast.Ident); ok && annotationsOf(info, rhs) != "" {
							if o := info.ObjectOf(id); o != nil {
								annVars[o] = true
							}
						}
					}
				}
				return true
			})
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					sel := info.Selections[n]
					if sel == nil || written[n] {
						return true
					}
					where := p.Fset.Position(n.Pos()).String()
					onPod := isNamed(deref(sel.Recv()), corePath, "Pod")
					switch sel.Kind() {
					case types.FieldVal:
						owner := ownerOf(sel)
						switch {
						case owner == nil:
						case isNamed(owner, metaPath, "ObjectMeta") && onPod:
							r.fields[field{"ObjectMeta", sel.Obj().Name()}] = append(r.fields[field{"ObjectMeta", sel.Obj().Name()}], where)
						case owner.Obj().Pkg() != nil && owner.Obj().Pkg().Path() == corePath && pod[owner.Obj().Name()]:
							k := field{owner.Obj().Name(), sel.Obj().Name()}
							r.fields[k] = append(r.fields[k], where)
						}
					case types.MethodVal:
						if name := sel.Obj().Name(); onPod && strings.HasPrefix(name, "Get") {
							k := field{"ObjectMeta", strings.TrimPrefix(name, "Get")}
							r.fields[k] = append(r.fields[k], where)
						}
					}
				case *ast.IndexExpr:
					tv, ok := info.Types[n.Index]
					if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
						return true
					}
					kind := annotationsOf(info, n.X)
					if id, ok := n.X.(*ast.Ident); ok && annVars[info.ObjectOf(id)] {
						kind = "unknown"
					}
					if kind == "pod" || kind == "unknown" {
						key := constant.StringVal(tv.Value)
						r.annotations[key] = append(r.annotations[key], p.Fset.Position(n.Pos()).String())
					}
				}
				return true
			})
		}
	}
	return r
}

// ownerOf is the struct type that declares the selected field (the
// embedded one for a promoted field).
func ownerOf(sel *types.Selection) *types.Named {
	t := sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		st, ok := deref(t).Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		t = st.Field(i).Type()
	}
	n, _ := types.Unalias(deref(t)).(*types.Named)
	return n
}

// annotationsOf says whose annotations e is: "pod" (a Pod's or a PVC's,
// the kinds trimmed), "unknown" (an interface's: any kind), "other" (a
// typed object of another kind), or "" when e is no annotation map.
func annotationsOf(info *types.Info, e ast.Expr) string {
	var recv ast.Expr
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if x.Sel.Name != "Annotations" {
			return ""
		}
		recv = x.X
	case *ast.CallExpr:
		s, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || s.Sel.Name != "GetAnnotations" {
			return ""
		}
		recv = s.X
	default:
		return ""
	}
	t := info.TypeOf(recv)
	if t == nil {
		return ""
	}
	switch {
	case isNamed(deref(t), corePath, "Pod"), isNamed(deref(t), corePath, "PersistentVolumeClaim"):
		return "pod"
	case types.IsInterface(t):
		return "unknown"
	}
	return "other"
}

// alsoRead are the Pod fields read outside the scanned code: by the
// cache (its keys and label index), by apimachinery (GetControllerOf) and
// by the patches the controller writes (the resourceVersion guard).
var alsoRead = []field{
	{"ObjectMeta", "Name"}, {"ObjectMeta", "Namespace"}, {"ObjectMeta", "UID"}, {"ObjectMeta", "ResourceVersion"},
	{"ObjectMeta", "Labels"}, {"ObjectMeta", "OwnerReferences"}, {"Pod", "ObjectMeta"},
}

// notFromPods are fields the scan finds read that the controller reads
// from other objects' pod templates only, never from a cached Pod.
var notFromPods = map[field]string{
	{"PodSpec", "NodeSelector"}: "cacheruntime.cacheAffinity reads the worker StatefulSet's template",
}

// TestTrimKeepsEveryFieldTheControllerReads fills every field of a Pod,
// trims it, and checks that each field the controller's code reads (scan)
// holds what it held: a read of a field Pod drops fails here.
func TestTrimKeepsEveryFieldTheControllerReads(t *testing.T) {
	r := scan(t)
	for _, f := range alsoRead {
		r.fields[f] = append(r.fields[f], "(outside the scanned code)")
	}
	for f := range notFromPods {
		delete(r.fields, f)
	}
	if len(r.fields) < 20 {
		t.Fatalf("the scan found only %d Pod fields read; it is broken: %v", len(r.fields), r.fields)
	}
	in := &corev1.Pod{}
	fill(reflect.ValueOf(in).Elem())
	for k := range r.annotations {
		in.Annotations[k] = "v-" + k
	}
	in.Labels[managedBy] = "sluice" // a Pod of Sluice's: tenants' are TestATenantPodKeepsWhatIsReadOfIt's
	out := Pod(in.DeepCopy())
	var lost []string
	compare(reflect.ValueOf(*in), reflect.ValueOf(*out), "Pod", r, &lost)
	sort.Strings(lost)
	for _, l := range lost {
		t.Error(l)
	}
	for k, where := range r.annotations {
		if !slices.Contains(Annotations, k) {
			t.Errorf("annotation %q is read (%s) but Annotations does not keep it", k, where[0])
		}
	}
}

// TestTrimDropsWhatTenantsFill checks that the trimmed Pod is small
// whatever its author put in its env, commands and annotations, and that
// the walk above is not vacuous (it would accept a Pod that keeps all).
func TestTrimDropsWhatTenantsFill(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	in := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "n", Annotations: map[string]string{"tenant/blob": big, "fluid.io/datasets-in-use": "d"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i", Command: []string{big}, Args: []string{big},
			Env: []corev1.EnvVar{{Name: "E", Value: big}}, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}, // required by the API server
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{Items: []corev1.KeyToPath{{Key: big}}}}}}},
	}
	out := Pod(in.DeepCopy())
	if out.Annotations["tenant/blob"] != "" || out.ManagedFields != nil || out.Spec.Containers != nil || out.Spec.Volumes != nil {
		t.Fatalf("kept of a tenant's Pod what the controller does not read: %+v", out)
	}
	if out.Annotations["fluid.io/datasets-in-use"] != "d" || out.Name != "p" {
		t.Fatalf("dropped of a tenant's Pod what the controller reads: %+v", out)
	}
	in.Labels = map[string]string{managedBy: "sluice"}
	out = Pod(in)
	if out.Annotations["tenant/blob"] != "" || out.ManagedFields != nil || out.Spec.Containers[0].Command != nil ||
		out.Spec.Containers[0].Args != nil || out.Spec.Containers[0].Env != nil || out.Spec.Volumes[0].ConfigMap != nil {
		t.Fatalf("kept what the controller does not read: %+v", out)
	}
	if out.Annotations["fluid.io/datasets-in-use"] != "d" || out.Spec.Containers[0].Image != "i" || out.Spec.Volumes[0].Name != "v" {
		t.Fatalf("dropped what the controller reads: %+v", out)
	}
}

// TestScanSeesKnownReads guards the scan itself: reads the controller is
// known to make must be among those it finds.
func TestScanSeesKnownReads(t *testing.T) {
	r := scan(t)
	for _, f := range []field{{"PodSpec", "Volumes"}, {"PersistentVolumeClaimVolumeSource", "ClaimName"}, {"PodStatus", "Phase"},
		{"ContainerStateTerminated", "ExitCode"}, {"NodeAffinity", "RequiredDuringSchedulingIgnoredDuringExecution"}, {"ObjectMeta", "DeletionTimestamp"}} {
		if len(r.fields[f]) == 0 {
			t.Errorf("the scan does not see %s read", f)
		}
	}
	for _, k := range []string{"fluid.io/datasets-in-use", "sidecar.sluice.io/apps-done"} {
		if len(r.annotations[k]) == 0 {
			t.Errorf("the scan does not see annotation %q read", k)
		}
	}
}

// compare walks in and out, both of type typ, reporting each read field
// whose value out lost. Structs, pointers and slices are followed; other
// values must be equal, except annotations, of which the keys read are.
func compare(in, out reflect.Value, typ string, r reads, lost *[]string) {
	t := in.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		k := field{typ, sf.Name}
		if len(r.fields[k]) == 0 {
			continue
		}
		a, b := in.Field(i), out.Field(i)
		path := k.String()
		if k == (field{"ObjectMeta", "Annotations"}) {
			ain, aout := a.Interface().(map[string]string), b.Interface().(map[string]string)
			for key := range r.annotations {
				if v, ok := ain[key]; ok && aout[key] != v {
					*lost = append(*lost, path+"["+key+"] is read ("+r.fields[k][0]+") but dropped")
				}
			}
			continue
		}
		walkValue(a, b, path, r, lost, r.fields[k][0])
	}
}

func walkValue(a, b reflect.Value, path string, r reads, lost *[]string, where string) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() != b.IsNil() {
			*lost = append(*lost, path+" is read ("+where+") but dropped")
			return
		}
		if !a.IsNil() {
			walkValue(a.Elem(), b.Elem(), path, r, lost, where)
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			*lost = append(*lost, path+" is read ("+where+") but dropped")
			return
		}
		for j := 0; j < a.Len(); j++ {
			walkValue(a.Index(j), b.Index(j), path+"[]", r, lost, where)
		}
	case reflect.Struct:
		if isCoreOrMeta(a.Type()) {
			compare(a, b, a.Type().Name(), r, lost)
			return
		}
		fallthrough
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*lost = append(*lost, path+" is read ("+where+") but changed")
		}
	}
}

func isCoreOrMeta(t reflect.Type) bool {
	return t.PkgPath() == corePath || t == reflect.TypeOf(metav1.ObjectMeta{})
}

// fill sets every exported field of v, recursively: strings "x", numbers
// 1, slices and maps one element, pointers allocated.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		switch v.Interface().(type) {
		case metav1.Time:
			v.Set(reflect.ValueOf(metav1.Unix(1, 0)))
			return
		}
		if v.Type().PkgPath() != corePath && v.Type().PkgPath() != metaPath {
			return // Quantity, IntOrString: left zero
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	}
}
