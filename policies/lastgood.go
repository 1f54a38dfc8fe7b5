package policies

import (
	"encoding/json"
	"maps"

	corev1 "k8s.io/api/core/v1"
)

// LastGoodAnnotation holds a policy ConfigMap's data (a JSON object of
// key to content) as it was in the last bundle the webhook loaded whole.
// The webhook's reloader writes it with the ok status. A webhook replica
// that starts while the ConfigMap does not compile, and the controller
// while the webhook reports it rejected, use this version instead of
// the broken one, so that they enforce what the running replicas enforce
// (their last good bundle) rather than leave a platform rule out (audit
// N12).
const LastGoodAnnotation = "policy.sluice.io/last-good"

// MaxLastGood is the most data the annotation keeps (an object's
// annotations total at most 256 KiB): a larger ConfigMap has no last good
// version, and is left out while it is broken.
const MaxLastGood = 128 << 10

// LastGoodValue is the annotation's value for cm's data now; "" when it
// is too large to keep.
func LastGoodValue(cm *corev1.ConfigMap) string {
	data := cm.Data
	if data == nil {
		data = map[string]string{}
	}
	b, err := json.Marshal(data)
	if err != nil || len(b) > MaxLastGood {
		return ""
	}
	return string(b)
}

// LastGood is cm with the data of its last good version, if it has one
// that differs from its data now.
func LastGood(cm corev1.ConfigMap) (corev1.ConfigMap, bool) {
	v, ok := cm.Annotations[LastGoodAnnotation]
	if !ok {
		return cm, false
	}
	var data map[string]string
	if err := json.Unmarshal([]byte(v), &data); err != nil || maps.Equal(data, cm.Data) {
		return cm, false
	}
	restored := *cm.DeepCopy()
	restored.Data = data
	return restored, true
}
