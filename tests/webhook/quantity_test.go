package webhook_test

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

type (
	corev1ResourceName = corev1.ResourceName
	resourceQuantity   = resource.Quantity
)

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
