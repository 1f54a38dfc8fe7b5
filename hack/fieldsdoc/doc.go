// Command fieldsdoc writes the engines' field tables (engines/fieldtables)
// into docs/engines.md between its markers; `make generate` runs it.
package main
