// Package cachetrim shapes what the controller's informer cache keeps, so
// that its memory grows with the number of objects and not with what
// tenants write into them (audit N9): every cached object loses its
// managedFields, and a Pod or PersistentVolumeClaim, which tenants create
// in any number and fill as they like, keeps only the fields the
// controller reads (Pod) and the annotations it reads (Annotations). The
// tests derive those fields from the controller's code, so that a new read
// of a field the cache drops fails them instead of reading an empty value.
package cachetrim
