// Command fieldsdoc writes the generated tables of docs/ between their
// markers: the engines' field tables (engines/registry) into
// docs/engines.md, the tenant trust table (trust) into docs/security.md
// and the rule reference of the default policies (webhook/policy/catalogue)
// into docs/policies.md; `make generate` runs it.
package main
