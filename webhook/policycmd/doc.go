// Package policycmd implements `sluice policy eval` and `sluice policy test`,
// which platform teams use to try and test policies offline. Both run the
// same pipeline as the webhook, over objects read from files.
package policycmd
