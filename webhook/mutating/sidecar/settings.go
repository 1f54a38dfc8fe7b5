package sidecar

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// setEnv sets each variable on c: it replaces every variable of its name
// that the FUSE template has (a value or a valueFrom), or is appended.
func setEnv(c *corev1.Container, env []corev1.EnvVar) {
	for _, e := range env {
		found := false
		for i := range c.Env {
			if c.Env[i].Name == e.Name {
				c.Env[i] = corev1.EnvVar{Name: e.Name, Value: e.Value}
				found = true
			}
		}
		if !found {
			c.Env = append(c.Env, corev1.EnvVar{Name: e.Name, Value: e.Value})
		}
	}
}

// setResources sets each limit and request on c, replacing the FUSE
// template's for its resource. It fails, before c is used, when a resource
// it sets would end with a request above its limit, which the API server
// would refuse: the message says which side came from the template.
func setResources(c *corev1.Container, r corev1.ResourceRequirements) error {
	if len(r.Limits) == 0 && len(r.Requests) == 0 {
		return nil
	}
	set := func(dst *corev1.ResourceList, src corev1.ResourceList) {
		if len(src) == 0 {
			return
		}
		if *dst == nil {
			*dst = corev1.ResourceList{}
		}
		for name, q := range src {
			(*dst)[name] = q.DeepCopy()
		}
	}
	set(&c.Resources.Limits, r.Limits)
	set(&c.Resources.Requests, r.Requests)
	var names []corev1.ResourceName
	for name := range r.Limits {
		names = append(names, name)
	}
	for name := range r.Requests {
		if _, ok := r.Limits[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		req, hasReq := c.Resources.Requests[name]
		limit, hasLimit := c.Resources.Limits[name]
		if !hasReq || !hasLimit || req.Cmp(limit) <= 0 {
			continue
		}
		return fmt.Errorf("the %s request %s would exceed the limit %s (%s); set both the limit and the request",
			name, req.String(), limit.String(), origin(r, name))
	}
	return nil
}

// origin says which of a resource's request and limit the policy set.
func origin(r corev1.ResourceRequirements, name corev1.ResourceName) string {
	_, limit := r.Limits[name]
	_, req := r.Requests[name]
	switch {
	case limit && req:
		return "both set by the policy"
	case limit:
		return "the limit set by the policy, the request the FUSE template's"
	default:
		return "the request set by the policy, the limit the FUSE template's"
	}
}
