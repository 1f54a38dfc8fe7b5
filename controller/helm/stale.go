package helm

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// staleAfter is how long past the action's Timeout a pending release
// record is taken to be abandoned: the process that wrote it would have
// finished or failed it by then.
const staleAfter = time.Minute

// WriterLabel is the label of a release record (its Secret) naming the
// controller process that wrote it (Client.Writer).
const WriterLabel = "data.sluice.io/helm-writer"

// abandonedLabel marks a record recoverStale marked failed: its process
// died, the spec did not fail, so it is no failed attempt (retry.go).
const abandonedLabel = "data.sluice.io/helm-abandoned"

// NewWriter returns a new process identity for Client.Writer: random, so
// that a restarted controller (same Pod name, same host) differs from the
// one it replaces.
func NewWriter() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go 1.24)
	return hex.EncodeToString(b)
}

// writerLabels are the labels an install or upgrade stamps on its record.
func (c *Client) writerLabels() map[string]string {
	if c.Writer == "" {
		return nil
	}
	return map[string]string{WriterLabel: c.Writer}
}

// stale reports whether rel is pending (an install, upgrade or rollback
// in progress) although nothing will finish it. Its callers are actions
// that hold the release (inflight.go). It is so when
//   - the record names another writer than this process (writer): that
//     process died between writing the pending record and the outcome
//     (OOM, SIGKILL, a lost leader election). One controller process
//     reconciles at a time (leader election; the process that loses its
//     lease exits before another can take it), so a record of another
//     process is not in progress;
//   - the record names this process: the caller holds the release, so no
//     action of this process is writing it; Helm left it pending when a
//     fault hit its final record write, which it only logs;
//   - otherwise (a record of no writer, written by a Sluice that did not
//     stamp its records, or a Client with no Writer) once pending for
//     longer than timeout allows.
func stale(rel *release.Release, timeout time.Duration, now time.Time, writer string) bool {
	if rel == nil || rel.Info == nil || !rel.Info.Status.IsPending() {
		return false
	}
	if w := rel.Labels[WriterLabel]; w != "" && writer != "" {
		return true
	}
	return now.Sub(rel.Info.LastDeployed.Time) > timeout+staleAfter
}

// recoverStale marks an abandoned pending release record failed, so that
// the release is rolled back or installed again like any failed one. It
// reports whether it did.
func (c *Client) recoverStale(rel *release.Release) (bool, error) {
	if !stale(rel, c.Timeout, time.Now(), c.Writer) {
		return false, nil
	}
	was := rel.Info.Status
	rel.Info.Status = release.StatusFailed
	rel.Info.Description = fmt.Sprintf("%s abandoned: pending since %s, longer than the %v an action may take", was, rel.Info.LastDeployed.Format(time.RFC3339), c.Timeout)
	switch w := rel.Labels[WriterLabel]; {
	case w != "" && w == c.Writer:
		rel.Info.Description = fmt.Sprintf("%s abandoned: pending since %s, written by this controller process, which has no action on it (Helm's last record write failed)", was, rel.Info.LastDeployed.Format(time.RFC3339))
	case w != "" && c.Writer != "":
		rel.Info.Description = fmt.Sprintf("%s abandoned: pending since %s, written by controller process %s, which is gone", was, rel.Info.LastDeployed.Format(time.RFC3339), w)
	}
	rel.Info.LastDeployed = helmtime.Now()
	if rel.Labels == nil {
		rel.Labels = map[string]string{}
	}
	rel.Labels[abandonedLabel] = "true"
	if err := c.cfg.Releases.Update(rel); err != nil {
		return false, fmt.Errorf("marking abandoned release %s (%s) failed: %w", rel.Name, was, err)
	}
	return true, nil
}
