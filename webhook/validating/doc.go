// Package validating is Sluice's validating admission for data operations,
// runtimes and Datasets: it gathers facts about the object and the cluster
// (parsed quantities, related objects) from caches, evaluates the
// validating Rego policies once, and then records the Dataset claims the
// policy asks for (package claim), denying when a conflicting operation
// holds the Dataset.
package validating
