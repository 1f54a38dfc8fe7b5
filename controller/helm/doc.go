// Package helm is the only place Sluice imports helm.sh: engine releases are
// installed, upgraded, rolled back and uninstalled through the Helm Go SDK
// (never the helm program), behind a release-state classifier that decides
// the next action from the latest release and the desired chart and values.
package helm
