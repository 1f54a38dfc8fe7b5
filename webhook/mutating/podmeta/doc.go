// Package podmeta sets the labels and annotations a mutating decision asks
// for, such as fluid.io/datasets-in-use and the injection marker.
package podmeta
