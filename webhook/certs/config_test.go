package certs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestValidate(t *testing.T) {
	short := Rotation{CAValidity: 40 * time.Second, ServingValidity: 30 * time.Second, RenewBefore: 20 * time.Second, CheckInterval: time.Second, Propagation: 5 * time.Second}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string // substring of the error; "" for none
	}{
		{"defaults", func(*Config) {}, ""},
		{"short rotation for tests", func(c *Config) { c.Rotation = short }, ""},
		{"unknown mode", func(c *Config) { c.Mode = "manual" }, `--cert-mode must be self-managed, cert-manager or files, not "manual"`},
		{"no directory", func(c *Config) { c.Dir = "" }, "--cert-dir must not be empty"},
		{"self-managed without a Secret", func(c *Config) { c.SecretName = "" }, "--cert-secret must not be empty in self-managed mode"},
		{"self-managed without a namespace", func(c *Config) { c.Namespace = "" }, "--namespace must not be empty"},
		{"cert-manager without a Certificate", func(c *Config) { c.Mode, c.CertificateName = CertManager, "" }, "--certificate must not be empty in cert-manager mode"},
		{"files needs no names", func(c *Config) { c.Mode, c.SecretName, c.Namespace, c.CertificateName = Files, "", "", "" }, ""},
		{"cert-manager ignores the rotation", func(c *Config) { c.Mode, c.Rotation = CertManager, Rotation{} }, ""},
		{"renewal not before expiry", func(c *Config) { c.Rotation.RenewBefore = c.Rotation.ServingValidity },
			"--cert-renew-before (8760h0m0s) must be shorter than --cert-validity (8760h0m0s)"},
		{"CA too short for a rollover", func(c *Config) { c.Rotation = short; c.Rotation.CAValidity = 30 * time.Second },
			"--ca-validity (30s) must be longer than --cert-renew-before plus twice --ca-propagation (30s)"},
		{"zero propagation", func(c *Config) { c.Rotation.Propagation = 0 }, "--ca-propagation must be positive, not 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConfig("sluice-system")
			c.Dir = "/certs"
			tc.change(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The chart's environment names the objects; flags override it.
func TestEnvironmentAndFlags(t *testing.T) {
	t.Setenv(EnvMode, "cert-manager")
	t.Setenv(EnvSecret, "rel-webhook-cert")
	t.Setenv(EnvService, "rel-webhook")
	t.Setenv(EnvMutatingConfiguration, "rel-mutating-webhook")
	t.Setenv(EnvValidatingConfiguration, "rel-validating-webhook")
	t.Setenv(EnvCertificate, "rel-webhook")
	c := NewConfig("data")
	want := Config{Mode: CertManager, Namespace: "data", SecretName: "rel-webhook-cert", ServiceName: "rel-webhook",
		MutatingConfiguration: "rel-mutating-webhook", ValidatingConfiguration: "rel-validating-webhook", CertificateName: "rel-webhook", Rotation: DefaultRotation}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("from the environment (-want +got):\n%s", diff)
	}
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	c.AddFlags(fs)
	if err := fs.Parse([]string{"--cert-mode=self-managed", "--cert-extra-dns-names=localhost,webhook.example", "--ca-propagation=1m"}); err != nil {
		t.Fatal(err)
	}
	if c.Mode != SelfManaged || c.Rotation.Propagation != time.Minute {
		t.Errorf("flags did not override: %+v", c)
	}
	wantNames := []string{"rel-webhook.data.svc", "rel-webhook.data.svc.cluster.local", "localhost", "webhook.example"}
	if got := c.DNSNames(); !slices.Equal(got, wantNames) {
		t.Errorf("DNS names %v, want %v", got, wantNames)
	}
}
