// Package conflicttable reads, for the controller's claims, the operation
// conflict table the validating webhook's policies use: the default policy
// data with the data of the policy ConfigMaps (label
// policy.sluice.io/bundle=true) of the webhook's policy namespaces merged
// over it, read from the API server at each claim (reliability audit L7:
// the controller followed the embedded defaults only).
package conflicttable
