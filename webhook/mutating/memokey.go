package mutating

import (
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Memo remembers decisions by input document (Pipeline.Memo): a repeated
// Pod is recognised from its Go input, without building the input's Rego
// value, which is most of what a remembered decision would otherwise cost.
type Memo = policy.Memo[Input, *Decided]

// NewMemo returns a memo of at most max decisions whose inputs add up to
// about maxBytes (policy.NewMemo); max <= 0 or maxBytes <= 0 disables it.
func NewMemo(max int, maxBytes int64) *Memo {
	return policy.NewMemo[Input, *Decided](max, maxBytes, sameInput)
}

// sameInput reports whether a and b are the same input document, which
// makes them the same Rego input: equal Go values (reflect.DeepEqual,
// stricter than equal JSON: a nil and an empty map differ, which only
// costs a remembered decision), the namespace and the dataset volumes
// compared by what policies see of them (their remembered Rego values
// aside, which other requests may be computing). Every other field of
// Input must hold plain data (TestInputIsPlainData).
func sameInput(a, b *Input) bool {
	if !a.Namespace.Equal(b.Namespace) || !slices.EqualFunc(a.DatasetVolumes, b.DatasetVolumes, snapshot.DatasetVolume.Equal) {
		return false
	}
	x, y := *a, *b
	x.Namespace, y.Namespace = snapshot.Namespace{}, snapshot.Namespace{}
	x.DatasetVolumes, y.DatasetVolumes = nil, nil
	return reflect.DeepEqual(&x, &y)
}

var seed = maphash.MakeSeed()

// inputHash hashes most of in (all of it compared by sameInput, so that
// equal inputs hash alike): the request, the Pod's names, labels,
// annotations, node selector, tolerations, volumes and containers, the
// namespace and the dataset volumes' claims. What it leaves out only puts
// inputs in one of the memo's buckets, which are bounded.
func inputHash(in *Input) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	r, m, spec := in.Request, in.Pod.Metadata, in.Pod.Spec
	str := func(ss ...string) { writeStrings(&h, ss) }
	str(r.Operation, r.Namespace, r.User.Username, m.Name, m.GenerateName, m.Namespace, in.Namespace.Name,
		spec.ServiceAccountName, spec.SchedulerName, spec.PriorityClassName, string(spec.RestartPolicy))
	str(r.User.Groups...)
	for _, flag := range []bool{r.DryRun, in.Cluster.NativeSidecars, spec.Affinity != nil, spec.SecurityContext != nil} {
		if flag {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	}
	for _, t := range spec.Tolerations {
		str(t.Key, string(t.Operator), t.Value, string(t.Effect))
	}
	for _, v := range spec.Volumes {
		str(v.Name)
	}
	for _, cs := range [][]InputContainer{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			str(c.Name, c.Image)
			for _, vm := range c.VolumeMounts {
				str(vm.Name, vm.MountPath)
			}
		}
	}
	for _, v := range in.DatasetVolumes {
		str(v.Volume, v.Claim, v.Dataset.Namespace, v.Dataset.Name, v.Dataset.Phase)
	}
	sum := h.Sum64()
	for _, mp := range []map[string]string{m.Labels, m.Annotations, spec.NodeSelector} {
		sum = sum*31 + unordered(mp)
	}
	return sum
}

// writeStrings writes ss to h, each ended by a zero byte.
func writeStrings(h *maphash.Hash, ss []string) {
	for _, s := range ss {
		h.WriteString(s)
		h.WriteByte(0)
	}
}

// unordered hashes a map whatever the order of its iteration: the sum of
// its entries' hashes, each of its key and value together (a map and one
// with two values swapped differ).
func unordered(m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	return sum
}

// memoKey is the input the memo keeps for req: built from copies of its
// own of the Pod, the user and the list of volumes, so that nothing the
// request goes on using (the patch reads the Pod after the decision is
// remembered, the mutators get the volumes) is shared with the inputs
// other requests compare with it. The volumes and the namespace are the
// gatherer's remembered values, which nothing modifies.
func memoKey(req Request, vols []snapshot.DatasetVolume, ns snapshot.Namespace, nativeSidecars bool) Input {
	req.Pod = req.Pod.DeepCopy()
	req.User = *req.User.DeepCopy()
	own := slices.Clone(vols)
	for i := range own {
		own[i].Fuse = nil // not input (sameInput leaves it out), and not counted in the memo's bytes
	}
	return NewInput(req, own, ns, nativeSidecars)
}
