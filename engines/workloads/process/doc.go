// Package process renders a DataProcess, whichever engine serves its
// Dataset: the user's pod spec (spec.processor.job.podSpec) or a script
// (spec.processor.script) run by a Job, or a CronJob for policy Cron, with
// the Dataset's PVC mounted into every container at spec.dataset.mountPath.
package process
