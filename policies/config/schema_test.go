package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sluice-data/sluice/policies/config"
)

// The schema the webhook checks data against (policies/data.schema.json,
// which hack/policyschema writes) is the Go definition's: run `make
// generate` after changing it.
func TestTheSchemaFileIsCurrent(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join("..", "data.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	s, err := config.Schema(filepath.Join("policies", "config"))
	if err != nil {
		t.Fatal(err)
	}
	generated, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(committed, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(generated, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("policies/data.schema.json is not the schema of policies/config: run make generate")
	}
}

func TestSchemaNeedsThePackageDirectory(t *testing.T) {
	if _, err := config.Schema("policies"); err == nil {
		t.Fatal("another directory was taken for the package's")
	}
}
