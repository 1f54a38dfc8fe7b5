// Package fluiddocs applies every data.fluid.io object of Fluid's
// documentation (testdata: extracted by hack/fluidcorpus/extract.py from
// docs/en and docs/zh of github.com/fluid-cloudnative/fluid, the commit
// named in each file) to Sluice installed with the fluid-compatible
// profile on the simulated cluster of package simcluster, one namespace
// per documentation page, in the page's order, as a user following the
// page would. Each object must be admitted and then reach Bound (a
// Dataset) or Complete (an operation), or be refused, or fail, with a
// message naming the field and the reason; testdata/outcomes.txt records
// what each one did (go test -update rewrites it), so that a change of
// behaviour shows in review.
package fluiddocs
