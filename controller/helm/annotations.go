package helm

// The annotations Helm puts on every object of a release: the controller
// tells a release's objects (its own) from others of the same name by them.
const (
	ReleaseNameAnnotation      = "meta.helm.sh/release-name"
	ReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)
