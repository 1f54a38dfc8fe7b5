package juicefs

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// A DataMigrate with spec.parallelism n above 1 runs juicefs sync in
// cluster mode: the operation's pod is the manager, which copies too and
// hands tasks to n-1 workers, pods of a StatefulSet running sshd. The
// manager logs into each worker over ssh (the key pair of the Secret that
// parallelOptions.sshSecretName names, as Fluid's keys ssh-privatekey and
// ssh-publickey), copies its own juicefs binary there and starts it as a
// worker, passing the environment the source and destination need. The
// image must provide sshd and ssh/scp (Fluid's parallel migration needs
// the same), and runs as root (the keys are mounted in /root/.ssh).

// Fluid's parallelOptions keys and defaults.
const (
	optionSSHSecret  = "sshSecretName"
	optionSSHPort    = "sshPort"
	optionSSHTimeout = "sshReadyTimeoutSeconds"

	defaultSSHPort    = 22
	defaultSSHTimeout = 180
)

// Where the ssh files appear, and the files the manager reads.
const (
	sshVolume     = "ssh"
	sshDir        = "/root/.ssh"
	sshConfigFile = "ssh_config"
	waitFile      = "wait-for-workers"
	filesDir      = "/sluice/files"
)

// sshConfig makes the manager reach the workers on their port, and accept
// their host keys (new pods, each with its image's keys); the port is
// appended as its own line.
const sshConfig = `# Written by Sluice for a parallel DataMigrate: juicefs sync logs into its
# workers over ssh.
Host *
    BatchMode yes
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
    Port `

// waitForWorkers runs before the manager: it waits until every worker
// accepts an ssh login, for at most its first argument's seconds. The
// hosts are its further arguments, never spliced into the script.
const waitForWorkers = `#!/bin/sh
# wait-for-workers SECONDS HOST...: wait until every HOST accepts an ssh
# login (options from ~/.ssh/config), for SECONDS at most.
deadline=$(( $(date +%s) + $1 ))
shift
for host in "$@"; do
  until ssh -o ConnectTimeout=5 "$host" true; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "worker $host accepted no ssh login in time" >&2
      exit 1
    fi
    sleep 2
  done
  echo "worker $host is ready"
done
`

// parallel is a parallel migration's settings.
type parallel struct {
	workers int32
	secret  string
	port    int32
	timeout int
}

// parallelOf reads spec.parallelism and spec.parallelOptions; nil when the
// migration runs in one pod (parallelOptions are then unused, which the
// validating webhook warns about).
func parallelOf(spec datav1alpha1.DataMigrateSpec) (*parallel, error) {
	if spec.Parallelism <= 1 {
		return nil, nil
	}
	opts := spec.ParallelOptions
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if k != optionSSHSecret && k != optionSSHPort && k != optionSSHTimeout {
			return nil, engines.Invalid("spec.parallelOptions[%q]: unknown option; the options are %s, %s and %s", k, optionSSHSecret, optionSSHPort, optionSSHTimeout)
		}
	}
	p := &parallel{workers: spec.Parallelism - 1, secret: opts[optionSSHSecret], port: defaultSSHPort, timeout: defaultSSHTimeout}
	if p.secret == "" {
		return nil, engines.Invalid("spec.parallelOptions.%s: required when spec.parallelism is above 1 (the Secret holding the workers' ssh key pair, keys ssh-privatekey and ssh-publickey)", optionSSHSecret)
	}
	if errs := validation.IsDNS1123Subdomain(p.secret); len(errs) > 0 {
		return nil, engines.Invalid("spec.parallelOptions.%s %q: not a Secret name: %s", optionSSHSecret, p.secret, strings.Join(errs, "; "))
	}
	if v, ok := opts[optionSSHPort]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return nil, engines.Invalid("spec.parallelOptions.%s %q: want a port number, 1 to 65535", optionSSHPort, v)
		}
		p.port = int32(n)
	}
	if v, ok := opts[optionSSHTimeout]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, engines.Invalid("spec.parallelOptions.%s %q: want a whole number of seconds, at least 1", optionSSHTimeout, v)
		}
		p.timeout = n
	}
	return p, nil
}

// apply makes pod, whose container c runs juicefs sync (its argv from
// index 4, after `timeout <duration> juicefs sync`), the manager of the
// release's workers, and adds the workers.
func (p *parallel) apply(release string, pod *dataop.Pod, c *corev1.Container) {
	hosts := dataop.WorkerHosts(release, p.workers)
	worker := *c.DeepCopy()
	// A worker has the manager's image, resources and external storage
	// (a local:// or pvc:// directory); the manager hands it the
	// environment the addresses need when it starts juicefs there.
	worker.Name, worker.Env = "worker", nil
	worker.Command = dataop.Args("/usr/sbin/sshd", "-D", "-e", "-p", strconv.Itoa(int(p.port)))
	worker.Ports = []corev1.ContainerPort{{Name: "ssh", ContainerPort: p.port}}
	worker.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(p.port)}}, PeriodSeconds: 5}
	worker.VolumeMounts = append(worker.VolumeMounts, corev1.VolumeMount{Name: sshVolume, MountPath: sshDir, SubPath: ".ssh", ReadOnly: true})
	volumes := append(slices.Clone(pod.Spec.Volumes), corev1.Volume{Name: sshVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: p.secret, DefaultMode: ptr.To[int32](0o600),
		Items: []corev1.KeyToPath{{Key: "ssh-publickey", Path: ".ssh/authorized_keys"}}}}})
	pod.Workers = &dataop.Workers{Replicas: p.workers, Spec: corev1.PodSpec{Containers: []corev1.Container{worker}, Volumes: volumes}}

	pod.Files = map[string]string{sshConfigFile: sshConfig + strconv.Itoa(int(p.port)) + "\n", waitFile: waitForWorkers}
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: sshVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](0o600),
		Sources: []corev1.VolumeProjection{
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: p.secret},
				Items: []corev1.KeyToPath{{Key: "ssh-privatekey", Path: ".ssh/id_rsa"}, {Key: "ssh-publickey", Path: ".ssh/id_rsa.pub"}}}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: dataop.FilesConfigMap(release)},
				Items: []corev1.KeyToPath{{Key: sshConfigFile, Path: ".ssh/config"}}}},
		},
	}}})
	sshMount := corev1.VolumeMount{Name: sshVolume, MountPath: sshDir, SubPath: ".ssh", ReadOnly: true}
	c.VolumeMounts = append(c.VolumeMounts, sshMount)
	c.Env = append(c.Env, corev1.EnvVar{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}})
	flags := []string{dataop.NoExpand("--worker=" + strings.Join(hosts, ",")), "--manager-addr=$(POD_IP)"}
	c.Command = slices.Insert(c.Command, syncFlagsAt, flags...)

	wait := *c.DeepCopy()
	wait.Name, wait.Env, wait.Resources = "wait-for-workers", nil, corev1.ResourceRequirements{}
	wait.Command = dataop.Args(append([]string{"/bin/sh", filesDir + "/" + waitFile, strconv.Itoa(p.timeout)}, hosts...)...)
	wait.VolumeMounts = []corev1.VolumeMount{sshMount, {Name: dataop.FilesVolume, MountPath: filesDir, ReadOnly: true}}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, wait)
}

// syncFlagsAt is where juicefs sync's flags start in the sync container's
// command: `timeout <duration> juicefs sync <flags> <from> <to>`.
const syncFlagsAt = 4
