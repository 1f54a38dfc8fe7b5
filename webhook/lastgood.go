package webhook

import "github.com/sluice-data/sluice/policies"

// LastGoodAnnotation is policies.LastGoodAnnotation: the reloader writes a
// policy ConfigMap's last good data there (audit N12).
const LastGoodAnnotation = policies.LastGoodAnnotation

// maxLastGood is the most data the annotation keeps.
const maxLastGood = policies.MaxLastGood

// lastGoodValue and lastGood read and write the annotation
// (policies.LastGoodValue, policies.LastGood).
var (
	lastGoodValue = policies.LastGoodValue
	lastGood      = policies.LastGood
)
