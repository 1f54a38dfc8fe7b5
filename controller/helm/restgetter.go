package helm

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Discovery is the API discovery Helm clients share: one in-memory cache
// and one REST mapper for a cluster, so that installing a release does not
// rediscover every API group. The mapper re-reads discovery when it meets
// an unknown kind.
type Discovery struct {
	cfg    *rest.Config
	once   sync.Once
	err    error
	dc     discovery.CachedDiscoveryInterface
	mapper meta.RESTMapper
}

// NewDiscovery returns the shared discovery for the cluster behind cfg;
// nothing is read until a client needs it.
func NewDiscovery(cfg *rest.Config) *Discovery { return &Discovery{cfg: rest.CopyConfig(cfg)} }

func (d *Discovery) init() error {
	d.once.Do(func() {
		dc, err := discovery.NewDiscoveryClientForConfig(d.cfg)
		if err != nil {
			d.err = err
			return
		}
		d.dc = memory.NewMemCacheClient(dc)
		d.mapper = restmapper.NewDeferredDiscoveryRESTMapper(d.dc)
	})
	return d.err
}

// restGetter gives the Helm SDK the clients of a rest.Config (Helm asks for a
// kubeconfig-style RESTClientGetter).
type restGetter struct {
	d         *Discovery
	namespace string
}

func (g *restGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.d.cfg), nil }

// ToDiscoveryClient initialises the discovery first: the Go spec leaves
// open whether a return list's operands are read before or after a call
// among them.
func (g *restGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	if err := g.d.init(); err != nil {
		return nil, err
	}
	return g.d.dc, nil
}

func (g *restGetter) ToRESTMapper() (meta.RESTMapper, error) {
	if err := g.d.init(); err != nil {
		return nil, err
	}
	return g.d.mapper, nil
}

func (g *restGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return clientcmd.NewDefaultClientConfig(clientcmdapi.Config{}, &clientcmd.ConfigOverrides{Context: clientcmdapi.Context{Namespace: g.namespace}})
}

// NewClientForConfig returns a Client for the releases of one namespace of
// the cluster d discovers.
func NewClientForConfig(d *Discovery, namespace string, log func(string, ...any)) (*Client, error) {
	return NewClient(&restGetter{d: d, namespace: namespace}, namespace, log)
}
