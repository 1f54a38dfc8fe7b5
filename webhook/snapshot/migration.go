package snapshot

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
)

// MigrationFacts is, for a Dataset a DataMigrate is migrating (phase
// DataMigrating), that DataMigrate: whether the Dataset's readers wait
// for it to end (spec.block). Fluid admits the Pods of a migrating Dataset;
// Sluice does too unless the DataMigrate asks them to wait.
type MigrationFacts struct {
	// Name is the DataMigrate holding the Dataset ("" when no holder is
	// recorded).
	Name string `json:"name"`
	// Found is false when that DataMigrate cannot be read (not yet in the
	// cache, or gone): whether it blocks is then unknown.
	Found bool `json:"found"`
	// Block is the DataMigrate's spec.block.
	Block bool `json:"block"`
}

// readMigration reads, for a DataMigrating Dataset, the DataMigrate that
// holds it (its operationRef) into src.
func (g *Gatherer) readMigration(ctx context.Context, ds *datav1alpha1.Dataset, src *sources, tracking bool) error {
	if ds.Status.Phase != datav1alpha1.DataMigratingDatasetPhase {
		return nil
	}
	src.migrating = migrator(ds)
	if src.migrating == "" {
		return nil
	}
	dm := &datav1alpha1.DataMigrate{}
	found, err := g.get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: src.migrating}, dm, src, tracking)
	if err == nil && found {
		src.migrate = dm
	}
	return err
}

// migrator is the DataMigrate a Dataset's claims name, "" when none.
func migrator(ds *datav1alpha1.Dataset) string {
	for _, h := range claim.Holders(ds) {
		if h.Kind == string(datav1alpha1.DataMigrateKind) {
			return h.Name
		}
	}
	return ""
}

// migrationFacts are the facts of src's migration; nil when the Dataset is
// not DataMigrating.
func migrationFacts(ds *datav1alpha1.Dataset, src *sources) *MigrationFacts {
	if ds.Status.Phase != datav1alpha1.DataMigratingDatasetPhase {
		return nil
	}
	m := &MigrationFacts{Name: src.migrating}
	if src.migrate != nil {
		m.Found, m.Block = true, src.migrate.Spec.Block
	}
	return m
}
