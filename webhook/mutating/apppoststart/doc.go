// Package apppoststart holds app containers until their dataset mounts are
// ready: for each entry of a mutating decision's appPostStart it gives the
// named container a postStart hook that runs mountcheck's script over the
// container's dataset mount paths (app.poststart.fluid.io/inject=true).
package apppoststart
