package policy

import (
	"fmt"
	"testing"

	"github.com/sluice-data/sluice/policies"
)

func TestZZRes(t *testing.T) {
	b, _ := DefaultBundle()
	wait := true
	c := mustCompile(t, b, &wait, policies.MutatingQuery)
	s := c.queries[policies.MutatingQuery].spec
	fmt.Println(s.query)
	for _, m := range s.support {
		for _, r := range m.Rules {
			str := r.String()
			if len(str) > 600 {
				str = str[:600]
			}
			fmt.Println(str)
		}
	}
}
