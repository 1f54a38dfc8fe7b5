// Package config embeds Sluice's generated CRDs, webhook configurations and
// samples, so that `sluice dev` can install them without a checkout.
package config
