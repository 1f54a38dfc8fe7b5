package policy

import (
	"slices"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// virtualCache is OPA's virtual-document cache (topdown.VirtualCache:
// the values of the rules an evaluation has computed, per frame of `with`
// modifiers) kept in memory that is reused from one evaluation to the
// next: OPA's own (topdown.NewVirtualCache) allocates a tree node and a
// hash map per rule value and frame, about one allocation in six of an
// evaluation of the default policies. It behaves as OPA's does (the
// package's tests compare both on random operations): a value is found
// only under the ref it was put with, in the top frame; putting nil marks
// the ref undefined, and an undefined mark wins over a value.
type virtualCache struct {
	// frames[:depth] are in use, frames[depth-1] is the top; the frames
	// past depth are empty (Pop and release empty a frame as it goes).
	frames []vframe
	depth  int
}

// vframe is one frame: its entries, chained by ref hash.
type vframe struct {
	index   map[int]int32 // ref hash -> first entry with that hash
	entries []ventry
	terms   []*ast.Term // the refs' terms, copied: a caller may reuse its ref
}

type ventry struct {
	ref       ast.Ref
	value     *ast.Term
	undefined bool
	next      int32 // next entry of the same hash, or -1
}

var _ topdown.VirtualCache = (*virtualCache)(nil)

var virtualCaches = sync.Pool{New: func() any { return &virtualCache{} }}

// newVirtualCache returns an empty cache with one frame, as
// topdown.NewVirtualCache does; release returns it for reuse.
func newVirtualCache() *virtualCache {
	c := virtualCaches.Get().(*virtualCache)
	c.Push()
	return c
}

// release returns c for reuse once its evaluation has ended. The values
// it held are not changed: an evaluation's result may share them.
func (c *virtualCache) release() {
	for i := range c.frames[:c.depth] {
		c.frames[i].reset()
	}
	c.depth = 0
	virtualCaches.Put(c)
}

func (f *vframe) reset() {
	clear(f.index)
	clear(f.entries) // drop the references to values
	f.entries = f.entries[:0]
	clear(f.terms)
	f.terms = f.terms[:0]
}

// Push starts a new, empty frame: one emptied when it was last popped or
// released, or a new one.
func (c *virtualCache) Push() {
	if c.depth == len(c.frames) {
		c.frames = append(c.frames, vframe{index: map[int]int32{}})
	}
	c.depth++
}

// Pop drops the top frame.
func (c *virtualCache) Pop() {
	c.depth--
	c.frames[c.depth].reset()
}

func (c *virtualCache) top() *vframe { return &c.frames[c.depth-1] }

// find returns the top frame's entry for ref, or nil.
func (f *vframe) find(ref ast.Ref, hash int) *ventry {
	i, ok := f.index[hash]
	for ok && i >= 0 {
		e := &f.entries[i]
		if e.ref.Equal(ref) {
			return e
		}
		i = e.next
	}
	return nil
}

// Get returns ref's value; (nil, true) when ref was marked undefined, and
// (nil, false) when nothing was put under it.
func (c *virtualCache) Get(ref ast.Ref) (*ast.Term, bool) {
	e := c.top().find(ref, ref.Hash())
	switch {
	case e == nil:
		return nil, false
	case e.undefined:
		return nil, true
	}
	return e.value, false
}

// Put records value under ref, or, when value is nil, marks ref undefined.
func (c *virtualCache) Put(ref ast.Ref, value *ast.Term) {
	f := c.top()
	hash := ref.Hash()
	e := f.find(ref, hash)
	if e == nil {
		start := len(f.terms)
		f.terms = append(f.terms, ref...)
		next, ok := f.index[hash]
		if !ok {
			next = -1
		}
		f.index[hash] = int32(len(f.entries))
		f.entries = append(f.entries, ventry{ref: f.terms[start:len(f.terms):len(f.terms)], next: next})
		e = &f.entries[len(f.entries)-1]
	}
	if value != nil {
		e.value = value
	} else {
		e.undefined = true
	}
}

// Keys returns the refs of the top frame that have a value.
func (c *virtualCache) Keys() []ast.Ref {
	var keys []ast.Ref
	for _, e := range c.top().entries {
		if e.value != nil {
			keys = append(keys, slices.Clone(e.ref)) // the frame's terms are reused

		}
	}
	return keys
}
