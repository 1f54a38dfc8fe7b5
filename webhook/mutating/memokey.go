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

// inputHash hashes the parts of in that tell Pods apart most often (all of
// them compared by sameInput, so that equal inputs hash alike): the
// request, the Pod's names, labels and annotations, its containers, and
// the volumes' claims.
func inputHash(in *Input) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	r, m := in.Request, in.Pod.Metadata
	for _, s := range []string{r.Operation, r.Namespace, r.User.Username, m.Name, m.GenerateName, m.Namespace, in.Namespace.Name} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	sum := h.Sum64()
	if r.DryRun {
		sum++
	}
	if in.Cluster.NativeSidecars {
		sum += 2
	}
	sum = sum*31 + unordered(m.Labels)
	sum = sum*31 + unordered(m.Annotations)
	for _, c := range in.Pod.Spec.Containers {
		sum = sum*31 + maphash.String(seed, c.Name) + 7*maphash.String(seed, c.Image)
	}
	for _, v := range in.DatasetVolumes {
		sum = sum*31 + maphash.String(seed, v.Volume) + 7*maphash.String(seed, v.Claim)
	}
	return sum
}

// unordered hashes a map whatever the order of its iteration.
func unordered(m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		sum += maphash.String(seed, k)*31 + maphash.String(seed, v)
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
	return NewInput(req, slices.Clone(vols), ns, nativeSidecars)
}
