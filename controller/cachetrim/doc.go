// Package cachetrim shapes what the controller's informer cache keeps, so
// that its memory grows with the number of objects and not with what
// tenants write into them (audit N9): every cached object loses its
// managedFields; a Pod of Sluice's (Sluices: rendered by an engine or a
// data operation, or injected by the webhook) keeps only the fields the
// controller reads (Pod) and the annotations it reads (Annotations); any
// other Pod, a tenant's, only which Datasets it uses, its phase and its
// identity (claimant); a PersistentVolumeClaim only the annotations the
// controller reads, without values no name can equal (keepAnnotations).
// A kept Pod is compacted and shares its labels, owners and namespace with
// the Pods of its workload (interned, a bounded table), and is not copied
// again when the cache transforms it a second time (trimmed). The tests derive the fields from the controller's
// code, so that a new read of a field the cache drops fails them instead
// of reading an empty value, and check that every pod template the
// engines render is labelled as Sluice's.
package cachetrim
