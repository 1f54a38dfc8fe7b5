// Command chartreadme writes the platform chart's README
// (charts/sluice/README.md) from readme.md.tmpl and the chart itself:
// Chart.yaml's name, version and description, and a table of every value
// in values.yaml with its default and the comment above it. `make
// generate` runs it and `make verify` fails when the committed README
// differs, so a value is documented where it is defined, once.
package main
