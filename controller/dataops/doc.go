// Package dataops reconciles data operations' holds on Datasets: it releases
// the claims of operations that finished, were deleted or were never stored,
// and claims Datasets for operations admitted without a claim (the webhook
// was unavailable or the Dataset did not exist yet), recording the outcome
// in a DatasetClaimed condition.
package dataops
