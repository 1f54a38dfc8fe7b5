package dataops

// Condition types and reasons of data operations.
const (
	// ConditionDatasetClaimed says whether the operation holds its Dataset.
	ConditionDatasetClaimed = "DatasetClaimed"

	// ReasonClaimed: the operation holds its Dataset.
	ReasonClaimed = "Claimed"
	// ReasonDatasetHeld: an operation of a conflicting kind holds the Dataset.
	ReasonDatasetHeld = "DatasetHeld"
	// ReasonDatasetNotFound: the Dataset does not exist (yet).
	ReasonDatasetNotFound = "DatasetNotFound"
	// ReasonNoTarget: the operation names no Dataset in its namespace.
	ReasonNoTarget = "NoTarget"
)
