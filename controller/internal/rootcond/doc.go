// Package rootcond writes a reconcile's conditions into a status: the
// root conditions a controller decides in order, each kept from the last
// round when this one did not decide it, and what the first of them that
// is not True says, for the controller's Ready (controller/cacheruntime,
// controller/reference).
package rootcond
