package fluiddocs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// pageTimeout bounds one page (stretched under the race detector): its
// objects applied, its Datasets Bound and its operations Complete, or
// failed.
const pageTimeout = 3 * time.Minute

// concurrentPages is how many pages are applied at once.
const concurrentPages = 12

// namesAField is what a refusal or a failure must say: the field, as
// Sluice's rules and the API server's errors name it (spec.…, metadata.…,
// spec: itself, or a path before the API server's reason).
var namesAField = regexp.MustCompile(`\b(spec|metadata)(\.[A-Za-z]|:)|(^|[\s\[])\.?[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*: (Invalid value|field not declared in schema|Required value|Forbidden|Unsupported value)`)

// TestFluidDocsUnderTheFluidCompatibleProfile applies every page of the
// corpus and checks each object's outcome.
func TestFluidDocsUnderTheFluidCompatibleProfile(t *testing.T) {
	pages := loadPages(t)
	if *only != "" {
		re := regexp.MustCompile(*only)
		pages = slices.DeleteFunc(pages, func(p page) bool { return !re.MatchString(p.name) })
	}
	results := make([][]string, len(pages))
	// First the pages whose Datasets or runtimes select labelled nodes, on
	// nodes labelled for them, so that no other page's Exclusive workers
	// take those first: a page that labels nodes only for its application
	// Pods runs with the rest, its workers placed anywhere (in the first
	// round they took the nodes of pages placing theirs, which then never
	// got all their workers; a stopped CI run showed it).
	for _, first := range []bool{true, false} {
		sem := make(chan struct{}, concurrentPages)
		var wg sync.WaitGroup
		for i, p := range pages {
			if p.placesWorkers() != first {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i] = runPage(t, i, p)
			}()
		}
		wg.Wait()
	}

	var got strings.Builder
	got.WriteString("# What each object of testdata/*.yaml did under the fluid-compatible profile\n# (go test ./tests/fluiddocs -update rewrites this file).\n")
	for i, p := range pages {
		fmt.Fprintf(&got, "\n%s\n", p.name)
		for _, line := range results[i] {
			fmt.Fprintf(&got, "  %s\n", golden(line))
			if !acceptable(line) {
				t.Errorf("%s: %s: neither Bound, Complete, nor refused or failed naming the field", p.name, line)
			}
		}
	}
	if *only != "" {
		t.Log(got.String())
		return
	}
	golden := filepath.Join("testdata", "outcomes.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got.String() {
		t.Errorf("the outcomes differ from %s (run with -update and review the diff):\n%s", golden, got.String())
	}
}

// golden is an outcome line as outcomes.txt records it: an API server's
// refusal up to its first colon (the object and "is invalid"), since the
// order and the number of the errors it lists vary; everything else whole.
func golden(line string) string {
	key, outcome, _ := strings.Cut(line, ": ")
	why, ok := strings.CutPrefix(outcome, "refused: ")
	if !ok || strings.HasPrefix(why, "admission webhook ") {
		return line
	}
	head, _, _ := strings.Cut(why, ": ")
	return key + ": refused by the API server: " + head
}

// acceptable says whether an outcome line is one the issue allows.
func acceptable(line string) bool {
	_, outcome, _ := strings.Cut(line, ": ")
	switch {
	case outcome == "Bound", outcome == "Complete", outcome == "created",
		outcome == "admitted (its Dataset is Bound)",
		outcome == "NotBound: the page creates no runtime for it", outcome == "NotBound: its runtime was refused",
		outcome == "waits: the page creates no Dataset of its name",
		strings.HasPrefix(outcome, "not run: "):
		return true
	case strings.HasPrefix(outcome, "refused: "), strings.HasPrefix(outcome, "failed: "):
		return namesAField.MatchString(outcome)
	}
	return false
}

// runPage applies the page's objects into namespaces of their own and
// returns one outcome line per object.
func runPage(t *testing.T, i int, p page) []string {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Stretch(pageTimeout))
	defer cancel()
	ns := &namespaces{ns: fmt.Sprintf("fd-%02d", i)}
	for _, o := range p.objs {
		ns.rewrite(o)
	}
	if labels := p.nodeLabels(); len(labels) > 0 {
		// As the page says: label nodes for what it selects.
		if _, err := cluster.AddNodes(ctx, ns.ns+"-node", p.workerNodes(), 110, labels); err != nil {
			t.Errorf("%s: labelled nodes: %v", p.name, err)
			return nil
		}
	}
	for _, name := range p.nodeNames() {
		// As the page's cluster has them (several pages may name one).
		if err := cluster.AddNamedNodes(ctx, []string{name}, 110, nil); err != nil && !apierrors.IsAlreadyExists(errors.Unwrap(err)) {
			t.Errorf("%s: node %s: %v", p.name, name, err)
			return nil
		}
	}
	for _, n := range ns.all() {
		if err := cluster.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("%s: namespace %s: %v", p.name, n, err)
			return nil
		}
	}
	type applied struct {
		obj     *unstructured.Unstructured
		refused string
	}
	// The page's last version of each object decides its outcome; an
	// earlier version refused is reported too.
	var order []string
	last := map[string]*applied{}
	var lines []string
	for _, o := range p.objs {
		key := o.GetKind() + "/" + strings.TrimPrefix(o.GetName(), ns.ns+"-")
		if o.GetNamespace() != ns.ns && o.GetNamespace() != "" {
			key = o.GetKind() + "/" + strings.TrimPrefix(o.GetNamespace(), ns.ns+"-") + "/" + o.GetName()
		}
		a := &applied{obj: o}
		if err := apply(ctx, o); err != nil {
			a.refused = normalise(err.Error(), ns)
		}
		if prev, ok := last[key]; ok && prev.refused != "" {
			lines = append(lines, fmt.Sprintf("%s (an earlier version): refused: %s", key, prev.refused))
		}
		if _, ok := last[key]; !ok {
			order = append(order, key)
		}
		last[key] = a
	}
	states := &pageState{ns: ns, page: p, objs: map[string]*unstructured.Unstructured{}, refused: map[string]bool{}}
	for _, key := range order {
		if a := last[key]; a.refused == "" {
			states.objs[key] = a.obj
		} else {
			states.refused[a.obj.GetKind()] = true
		}
	}
	states.settle(ctx)
	// What each object became, read after the page's time (ctx) is up.
	ctx, cancelRead := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelRead()
	for _, key := range order {
		a := last[key]
		if a.refused != "" {
			lines = append(lines, fmt.Sprintf("%s: refused: %s", key, a.refused))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %s", key, states.outcome(ctx, a.obj)))
	}
	return lines
}

// apply applies obj server-side as kubectl apply --server-side would,
// again after a webhook call that timed out (the loaded machine's, or the
// race detector's, slowness, not an answer), as a user would.
func apply(ctx context.Context, obj *unstructured.Unstructured) error {
	var err error
	for range 5 {
		err = cluster.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), client.FieldOwner("fluid-docs"), client.ForceOwnership)
		if err == nil || !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "failed calling webhook") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

// normalise takes the test's namespace names out of a message.
func normalise(msg string, ns *namespaces) string {
	for _, n := range ns.all()[1:] {
		msg = strings.ReplaceAll(msg, n, "<namespace "+strings.TrimPrefix(n, ns.ns+"-")+">")
	}
	return strings.ReplaceAll(msg, ns.ns, "<namespace>")
}

// pageState reads what the page's admitted objects became.
type pageState struct {
	ns      *namespaces
	page    page
	objs    map[string]*unstructured.Unstructured
	refused map[string]bool // kinds of which the page had an object refused
}

// settle waits until every Dataset is Bound or its runtime failed, and
// every operation is Complete or Failed (or waits for a Dataset that will
// not be Bound), or ctx ends.
func (s *pageState) settle(ctx context.Context) {
	for ctx.Err() == nil {
		done := true
		for _, o := range s.objs {
			if !s.settled(ctx, o) {
				done = false
				break
			}
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (s *pageState) settled(ctx context.Context, o *unstructured.Unstructured) bool {
	out := s.outcome(ctx, o)
	return !strings.HasPrefix(out, "pending")
}

// outcome is what became of one admitted object: "pending…" while it may
// still change.
func (s *pageState) outcome(ctx context.Context, o *unstructured.Unstructured) string {
	kind := o.GetKind()
	key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
	switch {
	case kind == "Dataset":
		return s.dataset(ctx, key)
	case isRuntime(kind):
		rt, _ := datav1alpha1.NewRuntime(kind)
		if err := cluster.Client.Get(ctx, key, rt); err != nil {
			return "pending: " + err.Error()
		}
		if why := failure(rt.GetRuntimeStatus().Conditions); why != "" {
			return "failed: " + normalise(why, s.ns)
		}
		if !s.page.creates("Dataset", key.Namespace, key.Name) {
			return "waits: the page creates no Dataset of its name"
		}
		switch d := s.dataset(ctx, key); {
		case d == "Bound":
			return "admitted (its Dataset is Bound)"
		case strings.HasPrefix(d, "not run: "):
			return d
		}
		return "pending: its Dataset is not Bound"
	case isOperation(kind):
		return s.operation(ctx, kind, key)
	}
	return "created"
}

// dataset is a Dataset's outcome: Bound, its runtime's failure, or that
// the page creates no runtime for it.
func (s *pageState) dataset(ctx context.Context, key types.NamespacedName) string {
	ds := &datav1alpha1.Dataset{}
	if err := cluster.Client.Get(ctx, key, ds); err != nil {
		return "pending: " + err.Error()
	}
	if ds.Status.Phase == datav1alpha1.BoundDatasetPhase {
		return "Bound"
	}
	if why := failure(ds.Status.Conditions); why != "" {
		return "failed: " + normalise(why, s.ns)
	}
	for _, kind := range datav1alpha1.RuntimeKinds() {
		rt, _ := datav1alpha1.NewRuntime(kind.Kind)
		if err := cluster.Client.Get(ctx, key, rt); err == nil {
			if why := failure(rt.GetRuntimeStatus().Conditions); why != "" {
				return "failed: its " + kind.Kind + ": " + normalise(why, s.ns)
			}
			why := unscheduled(ctx, key.Namespace)
			if s.refused["PersistentVolume"] && strings.Contains(why, "unbound immediate PersistentVolumeClaims") {
				return "not run: the PersistentVolume its PVC needs was refused"
			}
			return fmt.Sprintf("pending: Dataset %s, %s %s%s", phaseOr(string(ds.Status.Phase)), kind.Kind, runtimeState(rt), why)
		}
	}
	if len(ds.Spec.Mounts) > 0 && strings.HasPrefix(ds.Spec.Mounts[0].MountPoint, "dataset://") {
		return "pending: a reference Dataset"
	}
	if s.page.creates("Runtime", key.Namespace, key.Name) {
		return "NotBound: its runtime was refused"
	}
	return "NotBound: the page creates no runtime for it"
}

// operation is an operation's outcome: Complete, Failed with its reason,
// or that its Dataset will not be Bound.
func (s *pageState) operation(ctx context.Context, kind string, key types.NamespacedName) string {
	op, _ := datav1alpha1.NewOperation(kind)
	if err := cluster.Client.Get(ctx, key, op); err != nil {
		return "pending: " + err.Error()
	}
	st := op.GetOperationStatus()
	switch st.Phase {
	case datav1alpha1.PhaseComplete:
		return "Complete"
	case datav1alpha1.PhaseFailed:
		return "failed: " + normalise(conditionMessages(st.Conditions), s.ns)
	}
	if ns, name, ok := op.GetTargetDataset(); ok {
		if !s.page.creates("Dataset", ns, name) {
			return "not run: the page creates no Dataset " + name
		}
		out := s.dataset(ctx, types.NamespacedName{Namespace: ns, Name: name})
		if out != "Bound" && !strings.HasPrefix(out, "pending") {
			return "not run: its Dataset " + name + " is " + out
		}
	}
	return "pending: " + string(st.Phase)
}

// failure is the message of a condition that says the object cannot be
// served as written (reason InvalidSpec), or "".
func failure(conds []metav1.Condition) string {
	for _, c := range conds {
		if c.Status == metav1.ConditionFalse && c.Reason == "InvalidSpec" {
			return c.Type + ": " + c.Message
		}
	}
	if c := meta.FindStatusCondition(conds, "Failed"); c != nil && c.Status == metav1.ConditionTrue {
		return c.Message
	}
	return ""
}

func conditionMessages(conds []metav1.Condition) string {
	var out []string
	for _, c := range conds {
		if c.Message != "" && (c.Status == metav1.ConditionFalse || c.Type == "Failed") {
			out = append(out, c.Type+": "+c.Message)
		}
	}
	return strings.Join(out, "; ")
}

func isRuntime(kind string) bool {
	_, ok := datav1alpha1.NewRuntime(kind)
	return ok
}

func isOperation(kind string) bool {
	_, ok := datav1alpha1.NewOperation(kind)
	return ok
}

func phaseOr(p string) string {
	if p == "" {
		return "without phase"
	}
	return p
}

// runtimeState says how far a runtime is: its components' phases and the
// conditions that are not True.
func runtimeState(rt datav1alpha1.RuntimeObject) string {
	st := rt.GetRuntimeStatus()
	out := fmt.Sprintf("master %s, worker %s (%d/%d ready), fuse %s", phaseOr(string(st.MasterPhase)), phaseOr(string(st.WorkerPhase)),
		st.WorkerNumberReady, st.DesiredWorkerNumberScheduled, phaseOr(string(st.FusePhase)))
	for _, c := range st.Conditions {
		if c.Status != metav1.ConditionTrue {
			out += fmt.Sprintf("; %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	return out
}

// unscheduled names the namespace's pods the scheduler has not placed,
// with its reason.
func unscheduled(ctx context.Context, namespace string) string {
	pods := &corev1.PodList{}
	if err := cluster.Client.List(ctx, pods, client.InNamespace(namespace)); err != nil {
		return "; listing pods: " + err.Error()
	}
	var out string
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				out += fmt.Sprintf("; pod %s unscheduled: %s", p.Name, c.Message)
			}
		}
	}
	return out
}
