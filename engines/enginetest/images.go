package enginetest

import (
	"regexp"
	"slices"
)

var imageLine = regexp.MustCompile(`(?m)^\s*(?:-\s+)?image:\s*"?([^"\s]+)"?\s*$`)

// Images are the container images of rendered manifests, sorted and
// without repeats.
func Images(out map[string]string) []string {
	var images []string
	for _, m := range out {
		for _, g := range imageLine.FindAllStringSubmatch(m, -1) {
			images = append(images, g[1])
		}
	}
	slices.Sort(images)
	return slices.Compact(images)
}
