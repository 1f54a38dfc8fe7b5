// Package charts embeds the Helm charts Sluice installs for each engine and
// the one that runs data operations, so that the binary carries them (no
// chart directory on the controller's image).
package charts
