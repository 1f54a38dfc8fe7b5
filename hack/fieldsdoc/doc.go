// Command fieldsdoc writes the generated tables of docs/ between their
// markers: the engines' field tables (engines/registry) into
// docs/engines.md and the tenant trust table (trust) into
// docs/security.md; `make generate` runs it.
package main
