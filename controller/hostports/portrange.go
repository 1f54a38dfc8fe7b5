package hostports

import (
	"fmt"
	"strconv"
	"strings"
)

// Range is the ports First..Last, both included.
type Range struct {
	First, Last int
}

// DefaultRange is the range the controller allocates from unless told
// otherwise: Fluid's Alluxio controller default.
var DefaultRange = Range{First: 20000, Last: 25000}

// ParseRange reads "first-last" (e.g. 20000-25000), ports 1 to 65535.
func ParseRange(s string) (Range, error) {
	first, last, ok := strings.Cut(s, "-")
	if !ok {
		return Range{}, fmt.Errorf("host port range %q: want first-last, e.g. %v", s, DefaultRange)
	}
	var r Range
	var err1, err2 error
	r.First, err1 = strconv.Atoi(strings.TrimSpace(first))
	r.Last, err2 = strconv.Atoi(strings.TrimSpace(last))
	switch {
	case err1 != nil || err2 != nil:
		return Range{}, fmt.Errorf("host port range %q: want first-last, e.g. %v", s, DefaultRange)
	case r.First < 1 || r.Last > 65535 || r.First > r.Last:
		return Range{}, fmt.Errorf("host port range %q: want 1 <= first <= last <= 65535", s)
	}
	return r, nil
}

// Size is how many ports the range holds.
func (r Range) Size() int { return r.Last - r.First + 1 }

func (r Range) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last) }

// Set implements pflag.Value (the controller's --runtime-node-port-range).
func (r *Range) Set(s string) error {
	v, err := ParseRange(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Type implements pflag.Value.
func (*Range) Type() string { return "first-last" }
