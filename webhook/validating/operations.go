package validating

import (
	"context"
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// operationFacts gathers what the policies know of a data operation: its
// Dataset and that Dataset's engine, where its runAfter leads, and its
// schedule.
func (g *Gatherer) operationFacts(ctx context.Context, obj client.Object) (Facts, error) {
	var f Facts
	op, ok := obj.(datav1alpha1.OperationObject)
	if !ok {
		return f, nil
	}
	if ns, name, ok := op.GetTargetDataset(); ok {
		f.Target = &Target{Namespace: ns, Name: name}
		ds := &datav1alpha1.Dataset{}
		found, err := g.get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ds)
		if err != nil {
			return f, err
		}
		if found && len(ds.Status.Runtimes) > 0 {
			f.Target.RuntimeType = ds.Status.Runtimes[0].Type
		}
	}
	if ref := op.GetRunAfter(); ref != nil {
		exists, err := g.operationExists(ctx, op.GetNamespace(), ref)
		if err != nil {
			return f, err
		}
		cycle, err := g.cycle(ctx, op)
		if err != nil {
			return f, err
		}
		f.RunAfter = &RunAfter{Exists: exists, Cycle: cycle}
	}
	if op.GetPolicy() == datav1alpha1.Cron {
		f.Schedule = &Schedule{Error: scheduleError(op.GetSchedule())}
	}
	return f, nil
}

// scheduleError says why a schedule is not one a CronJob accepts (the
// parser and the rule batch/v1 validation uses), "" when it is.
func scheduleError(schedule string) string {
	if strings.Contains(schedule, "TZ") {
		return "a time zone (TZ= or CRON_TZ=) cannot be set in the schedule"
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		return err.Error()
	}
	return ""
}

// maxFollowed bounds how many operations a runAfter cycle search reads.
const maxFollowed = 64

// opNode is one operation in the runAfter graph of a namespace.
type opNode struct{ kind, name string }

func (n opNode) String() string { return n.kind + " " + n.name }

// cycle returns a chain of runAfter and dependOn references from op back to
// op, if there is one: a depth-first search over the operations they name
// in op's namespace (references to other namespaces are denied on their
// own), each read from the cache once, op itself as admitted.
func (g *Gatherer) cycle(ctx context.Context, op datav1alpha1.OperationObject) ([]string, error) {
	self := opNode{string(op.GetOperationKind()), op.GetName()}
	ns := op.GetNamespace()
	var path []opNode
	visited := map[opNode]bool{}
	var visit func(n opNode, refs []datav1alpha1.ObjectRef) (bool, error)
	visit = func(n opNode, refs []datav1alpha1.ObjectRef) (bool, error) {
		path = append(path, n)
		for _, ref := range refs {
			next := opNode{string(ref.Kind), ref.Name}
			switch {
			case ref.Namespace != "" && ref.Namespace != ns:
				continue
			case next == self:
				path = append(path, self)
				return true, nil
			case visited[next] || len(visited) >= maxFollowed:
				continue
			}
			visited[next] = true
			nextOp, ok := datav1alpha1.NewOperation(next.kind)
			if !ok {
				continue
			}
			found, err := g.get(ctx, types.NamespacedName{Namespace: ns, Name: next.name}, nextOp)
			if err != nil {
				return false, err
			}
			if !found {
				continue
			}
			if closed, err := visit(next, references(nextOp)); closed || err != nil {
				return closed, err
			}
		}
		path = path[:len(path)-1]
		return false, nil
	}
	closed, err := visit(self, references(op))
	if err != nil || !closed {
		return nil, err
	}
	out := make([]string, len(path))
	for i, n := range path {
		out[i] = n.String()
	}
	return out, nil
}

// references are the operations op waits for: its runAfter and the
// affinityStrategy.dependOn of it.
func references(op datav1alpha1.OperationObject) []datav1alpha1.ObjectRef {
	ref := op.GetRunAfter()
	if ref == nil {
		return nil
	}
	out := []datav1alpha1.ObjectRef{ref.ObjectRef}
	if d := ref.AffinityStrategy.DependOn; d != nil {
		out = append(out, *d)
	}
	return out
}
