package alluxio

import (
	"fmt"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// masterDomain is the DNS domain of the master pods (their headless
// Service).
func masterDomain(rt *datav1alpha1.AlluxioRuntime) string {
	return fmt.Sprintf("%s-master.%s.svc", rt.Name, rt.Namespace)
}

// masterAddresses tells every process where the masters are: one master
// keeps a local UFS journal; several form an embedded-journal quorum.
func masterAddresses(props map[string]string, rt *datav1alpha1.AlluxioRuntime, replicas int32, mp, jmp map[string]int) {
	props["alluxio.master.journal.folder"] = journalDir
	host := func(i int32) string { return fmt.Sprintf("%s-master-%d.%s", rt.Name, i, masterDomain(rt)) }
	if replicas == 1 {
		props["alluxio.master.hostname"], props["alluxio.job.master.hostname"] = host(0), host(0)
		props["alluxio.master.journal.type"] = "UFS"
		return
	}
	list := func(port int) string {
		addrs := make([]string, replicas)
		for i := range replicas {
			addrs[i] = fmt.Sprintf("%s:%d", host(i), port)
		}
		return strings.Join(addrs, ",")
	}
	props["alluxio.master.journal.type"] = "EMBEDDED"
	props["alluxio.master.rpc.addresses"] = list(mp["rpc"])
	props["alluxio.master.embedded.journal.addresses"] = list(mp["embedded"])
	props["alluxio.job.master.rpc.addresses"] = list(jmp["rpc"])
	props["alluxio.job.master.embedded.journal.addresses"] = list(jmp["embedded"])
}
