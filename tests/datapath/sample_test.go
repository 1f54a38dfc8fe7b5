package datapath_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// sampleFile is the documented rclone sample the test runs.
var sampleFile = filepath.Join(testenv.RepoRoot(), "config", "samples", "thin-rclone", "rclone-s3.yaml")

// sample is the rclone sample's objects.
type sample struct {
	Profile *datav1alpha1.ThinRuntimeProfile
	Secret  *corev1.Secret
	Dataset *datav1alpha1.Dataset
	Runtime *datav1alpha1.ThinRuntime
}

// loadSample reads the sample. It changes only what this machine needs:
// the namespace, the endpoint and the keys of the test's S3 server.
func loadSample(tb testing.TB, namespace, endpoint string) sample {
	tb.Helper()
	f, err := os.Open(sampleFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var s sample
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			tb.Fatalf("%s: %v", sampleFile, err)
		}
		var meta struct{ Kind string }
		if err := json.Unmarshal(raw.Raw, &meta); err != nil {
			tb.Fatal(err)
		}
		var into any
		switch meta.Kind {
		case "ThinRuntimeProfile":
			s.Profile = &datav1alpha1.ThinRuntimeProfile{}
			into = s.Profile
		case "Secret":
			s.Secret = &corev1.Secret{}
			into = s.Secret
		case "Dataset":
			s.Dataset = &datav1alpha1.Dataset{}
			into = s.Dataset
		case "ThinRuntime":
			s.Runtime = &datav1alpha1.ThinRuntime{}
			into = s.Runtime
		default:
			tb.Fatalf("%s: unexpected kind %q", sampleFile, meta.Kind)
		}
		d := json.NewDecoder(bytes.NewReader(raw.Raw))
		d.DisallowUnknownFields()
		if err := d.Decode(into); err != nil {
			tb.Fatalf("%s: %s: %v", sampleFile, meta.Kind, err)
		}
	}
	if s.Profile == nil || s.Secret == nil || s.Dataset == nil || s.Runtime == nil {
		tb.Fatalf("%s must hold a ThinRuntimeProfile, a Secret, a Dataset and a ThinRuntime", sampleFile)
	}
	for _, o := range []client.Object{s.Secret, s.Dataset, s.Runtime} {
		o.SetNamespace(namespace)
	}
	if len(s.Dataset.Spec.Mounts) != 1 || s.Dataset.Spec.Mounts[0].Options["endpoint"] == "" {
		tb.Fatalf("%s: the Dataset must have one mount with an endpoint option", sampleFile)
	}
	s.Dataset.Spec.Mounts[0].Options["endpoint"] = endpoint
	s.Secret.StringData = nil
	s.Secret.Data = map[string][]byte{}
	for _, o := range s.Dataset.Spec.Mounts[0].EncryptOptions {
		key := map[string]string{"access_key_id": accessKey, "secret_access_key": secretKey}[o.Name]
		if key == "" || o.ValueFrom.SecretKeyRef.Name != s.Secret.Name {
			tb.Fatalf("%s: unexpected encrypt option %+v", sampleFile, o)
		}
		s.Secret.Data[o.ValueFrom.SecretKeyRef.Key] = []byte(key)
	}
	return s
}

// create stores the sample in the API server (the cluster-scoped profile
// once) and reads each object back, as the controller would see it.
func (s sample) create(tb testing.TB) {
	tb.Helper()
	ctx := testenv.Context(tb)
	for _, o := range []client.Object{s.Profile, s.Secret, s.Dataset, s.Runtime} {
		err := env.Client.Create(ctx, o)
		if apierrors.IsAlreadyExists(err) && o == client.Object(s.Profile) {
			err = nil
		}
		if err != nil {
			tb.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			tb.Fatal(err)
		}
	}
}
