package alluxio

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// mountJob is the Job that applies the Dataset's nested mounts to the
// running master (charts/alluxio/templates/mount-job.yaml): a change of
// them needs no master restart, which with one master would start it from
// an empty journal. The mount-ufs sidecar mounts them when a master pod
// starts; the Job makes a running master's mount table the Dataset's.
type mountJob struct {
	Name         string         `json:"name"`
	BackoffLimit int32          `json:"backoffLimit"`
	Pod          corev1.PodSpec `json:"pod"`
}

// mountJobRetries is the Job's backoffLimit: each retry is a new pod, which
// waits for the master again (pruneScript).
const mountJobRetries = 6

// mountTable is the start of the Job's scripts: it enters the Alluxio
// directory and defines mounts, which prints the master's mount table
// (the output of alluxio fs mount, given as $1) as lines "<path> <under
// storage>". Alluxio prints each mount as "<ufs>  on  <path>  (<type>,
// ...)"; an Alluxio path has no spaces (mountPathChars), an under storage
// may.
const mountTable = `cd /opt/alluxio || exit 1
mounts() {
  printf '%s\n' "$1" | awk '{
    if (match($0, "  on  /[A-Za-z0-9._/-]*  *[(]")) {
      u = substr($0, 1, RSTART - 1); sub(/ +$/, "", u)
      p = substr($0, RSTART + 6, RLENGTH - 6); sub(/ *[(]$/, "", p)
      print p " " u
    }
  }'
}
`

// pruneScript waits for the master to answer (five minutes), then unmounts,
// deepest first, every nested mount that is not one of its arguments (the
// Dataset's Alluxio paths). It is a constant: the paths reach it as
// positional parameters, never as script text.
const pruneScript = mountTable + `n=0
until table=$(bin/alluxio fs mount); do
  n=$((n + 1))
  [ "$n" -lt 60 ] || { echo "the Alluxio master does not answer" >&2; exit 1; }
  sleep 5
done
mounts "$table" | while read -r p u; do [ "$p" = / ] || printf '%s\n' "$p"; done | sort -r | while read -r p; do
  for keep in "$@"; do [ "$keep" = "$p" ] && continue 2; done
  echo "unmounting $p"
  bin/alluxio fs unmount "$p" || exit 1
done
`

// mountScript makes one nested mount ($1, from the under storage $2, with
// the flags that follow) what the Dataset says: mounted when it is not,
// its options updated (alluxio fs updateMount keeps the metadata and cache
// under it) when it is mounted from the same under storage, unmounted and
// mounted again from another. A constant, like pruneScript.
const mountScript = mountTable + `p=$1 ufs=$2
shift 2
table=$(bin/alluxio fs mount) || exit 1
cur=$(mounts "$table" | while read -r mp u; do [ "$mp" = "$p" ] && printf '%s' "$u"; done)
if [ -z "$cur" ]; then
  echo "mounting $p"
  exec bin/alluxio fs mount "$@" "$p" "$ufs"
elif [ "${cur%/}" = "${ufs%/}" ]; then
  echo "updating the options of $p"
  exec bin/alluxio fs updateMount "$@" "$p"
fi
echo "remounting $p from $ufs (was $cur)"
bin/alluxio fs unmount "$p" || exit 1
exec bin/alluxio fs mount "$@" "$p" "$ufs"
`

// mountJobOf is the mount Job of the Dataset's mounts (digest:
// engines.MountsDigest): a client of the runtime's masters (its
// alluxio-site.properties) in the master's image, reading the nested
// mounts' secret options from its environment, which first unmounts what
// the Dataset no longer mounts and then applies each nested mount in turn
// (one container each, dataop.Sequence). A Dataset whose sole mount is the
// root under storage has no nested mount: its Job only checks that no
// nested mount is left.
func mountJobOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime, u ufs, digest string, img image) mountJob {
	c, config := clientContainer(rt, img)
	c.Env = secretEnv(u.nestedSecrets)
	paths := make([]string, len(u.nested))
	for i, n := range u.nested {
		paths[i] = n.Path
	}
	steps := []dataop.Step{{Name: "unmount-removed", Argv: append(dataop.Args("/bin/sh", "-c", pruneScript, "prune"), dataop.Args(paths...)...)}}
	for i, n := range u.nested {
		argv := append(dataop.Args("/bin/sh", "-c", mountScript, "mount", n.Path, n.uri), n.flags...)
		steps = append(steps, dataop.Step{Name: fmt.Sprintf("mount-%d", i), Argv: argv})
	}
	initContainers, containers := dataop.Sequence(c, steps)
	return mountJob{
		Name: engines.MountJobName(rt.Name, digest), BackoffLimit: mountJobRetries,
		Pod: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, InitContainers: initContainers, Containers: containers,
			Volumes: []corev1.Volume{config}, ImagePullSecrets: rt.Spec.ImagePullSecrets, Tolerations: ds.Spec.Tolerations,
		},
	}
}
