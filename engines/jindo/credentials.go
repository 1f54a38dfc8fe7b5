package jindo

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// TokenDir is where every JindoCache container finds its credentials as
// files; the configuration names only this location.
const TokenDir = "/token"

// tokenProvider is the credential-provider location JindoCache reads the
// files in TokenDir from.
const tokenProvider = "secrets://" + TokenDir + "/"

// Files in TokenDir that an access key's two halves are projected to.
var keyFiles = map[string]string{"accessKeyId": "AccessKeyId", "accessKeySecret": "AccessKeySecret"}

// creds is what the credentials contribute: the /token volume and the
// properties that point JindoCache at it.
type creds struct {
	Volume         *credentials
	Common, Client map[string]string
}

type encryptOption struct {
	field string
	opt   datav1alpha1.EncryptOption
}

// credentialsOf reads the Dataset's encryptOptions (sharedEncryptOptions and
// each mount's) and the runtime's spec.secret. Access keys are projected from
// their Secrets to TokenDir/AccessKeyId and TokenDir/AccessKeySecret;
// spec.secret (an STS token Secret) is mounted whole at TokenDir. Only one of
// the two may be used, and access keys serve a single object-store scheme.
func credentialsOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime, schemes []string) (creds, error) {
	c := creds{Common: map[string]string{}, Client: map[string]string{}}
	var opts []encryptOption
	for i, o := range ds.Spec.SharedEncryptOptions {
		opts = append(opts, encryptOption{fmt.Sprintf("dataset spec.sharedEncryptOptions[%d]", i), o})
	}
	for i, m := range ds.Spec.Mounts {
		for j, o := range m.EncryptOptions {
			opts = append(opts, encryptOption{fmt.Sprintf("dataset spec.mounts[%d].encryptOptions[%d]", i, j), o})
		}
	}
	items, scheme, err := keyProjections(opts, schemes)
	if err != nil {
		return creds{}, err
	}
	switch {
	case len(items) > 0 && rt.Spec.Secret != "":
		return creds{}, engines.Invalid("spec.secret %q and the dataset's encryptOptions both supply credentials at %s; use one", rt.Spec.Secret, TokenDir)
	case len(items) > 0:
		c.Volume = &credentials{Items: items}
		c.Common["default.credential.provider"] = tokenProvider
		c.Common["jindocache."+scheme+".provider.endpoint"] = tokenProvider
		c.Client["fs."+scheme+".provider.endpoint"] = tokenProvider
	case rt.Spec.Secret != "":
		c.Volume = &credentials{Secret: rt.Spec.Secret}
		c.Common["default.credential.provider"] = tokenProvider
		for _, s := range schemes {
			c.Common["jindocache."+s+".provider.endpoint"] = tokenProvider
			c.Client["fs."+s+".provider.endpoint"] = tokenProvider
			c.Client["fs."+s+".provider.format"] = "JSON"
		}
	}
	return c, nil
}

// keyProjections maps fs.<scheme>.accessKeyId/accessKeySecret options to
// files in TokenDir and returns them with the scheme they serve.
func keyProjections(opts []encryptOption, schemes []string) ([]secretProject, string, error) {
	byFile := map[string]encryptOption{}
	scheme := ""
	for _, o := range opts {
		s, half, ok := accessKeyName(o.opt.Name)
		if !ok {
			return nil, "", engines.Invalid("%s.name %q: JindoCache takes fs.<scheme>.accessKeyId and fs.<scheme>.accessKeySecret from Secrets", o.field, o.opt.Name)
		}
		if !slices.Contains(schemes, s) {
			return nil, "", engines.Invalid("%s.name %q: no mount of the dataset uses %s://", o.field, o.opt.Name, s)
		}
		if scheme != "" && s != scheme {
			return nil, "", engines.Invalid("%s.name %q: access keys are already given for %s://; JindoCache reads one access key from %s", o.field, o.opt.Name, scheme, TokenDir)
		}
		scheme = s
		ref := o.opt.ValueFrom.SecretKeyRef
		if ref.Name == "" || ref.Key == "" {
			return nil, "", engines.Invalid("%s.valueFrom.secretKeyRef needs both name and key", o.field)
		}
		file := keyFiles[half]
		if prev, ok := byFile[file]; ok && prev.opt.ValueFrom.SecretKeyRef != ref {
			return nil, "", engines.Invalid("%s and %s name different Secret keys for %s", prev.field, o.field, o.opt.Name)
		}
		byFile[file] = o
	}
	if len(byFile) == 0 {
		return nil, "", nil
	}
	for half, file := range keyFiles {
		if _, ok := byFile[file]; !ok {
			return nil, "", engines.Invalid("dataset encryptOptions: fs.%s.%s is missing; an access key needs both halves", scheme, half)
		}
	}
	var items []secretProject
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		ref := byFile[file].opt.ValueFrom.SecretKeyRef
		items = append(items, secretProject{Secret: ref.Name, Key: ref.Key, Path: file})
	}
	return items, scheme, nil
}

// accessKeyName splits "fs.<scheme>.accessKeyId" into scheme and half.
func accessKeyName(name string) (scheme, half string, ok bool) {
	parts := strings.Split(name, ".")
	if len(parts) != 3 || parts[0] != "fs" {
		return "", "", false
	}
	if _, known := keyFiles[parts[2]]; !known || !slices.Contains(objectStores, parts[1]) {
		return "", "", false
	}
	return parts[1], parts[2], true
}
