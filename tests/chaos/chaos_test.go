package chaos_test

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

const (
	// datasets is how many Datasets the workload creates.
	datasets = 20
	// maxKillDelay bounds the random wait between a phase's start and the
	// kill: the controller's work of a phase takes a few seconds.
	maxKillDelay = 4 * time.Second
	// convergeWithin is how long the cluster may take to converge after
	// each restart (issue #17), stretched under -race.
	convergeWithin = 60 * time.Second
)

// TestControllerKilled runs a workload of 20 JuiceFS Datasets in 20 phases
// (creating them, scaling their runtimes, changing a worker option,
// running DataLoads, deleting them with their DataLoads) and kills the
// controller with SIGKILL at a random point of each phase: a random
// 0–maxKillDelay after the phase's changes are stored. After each restart
// the cluster converges within convergeWithin to exactly what the
// workload asked for (violations: an empty list). SLUICE_CHAOS_SEED
// replays a run's kill points and choices.
func TestControllerKilled(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("SLUICE_CHAOS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("SLUICE_CHAOS_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (SLUICE_CHAOS_SEED=%d replays this run)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	c := cluster.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "chaos"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	m := newModel(ns.Name)
	w := &workload{c: c, m: m, rng: rng}

	logs := t.TempDir()
	ctrl, err := startController(logs, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ctrl.kill() }()
	defer func() {
		if t.Failed() {
			t.Logf("the controller's log ends:\n%s", ctrl.logTail(60))
			t.Log(cluster.Logs(15))
		}
	}()

	start := time.Now()
	var took []time.Duration
	busy := 0 // kills that found work not yet done
	for round, p := range schedule(rng) {
		what, err := w.apply(ctx, p.kind, p.n)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		delay := time.Duration(rng.Int63n(int64(maxKillDelay)))
		time.Sleep(delay)
		if err := ctrl.exited(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		ctrl.kill()
		pending := currentViolations(ctx, t, m)
		if len(pending) > 0 {
			busy++
		}
		t.Logf("round %2d: %s; SIGKILL after %s with %d thing(s) not yet converged%s", round, what,
			delay.Round(time.Millisecond), len(pending), firstOf(pending))
		if ctrl, err = startController(logs, round+1); err != nil {
			t.Fatal(err)
		}
		d := converge(ctx, t, m, ctrl)
		took = append(took, d)
		t.Logf("round %2d: converged %s after the restart", round, d.Round(10*time.Millisecond))
	}
	// Converged stays converged: nothing left over comes back.
	time.Sleep(5 * time.Second)
	if v := currentViolations(ctx, t, m); len(v) > 0 {
		t.Fatalf("5 s after the last convergence:\n%s", strings.Join(v, "\n"))
	}
	var sum, worst time.Duration
	for _, d := range took {
		sum += d
		worst = max(worst, d)
	}
	t.Logf("%d kills (%d with work in flight), %d Datasets (%d live, %d deleted): convergence mean %s, max %s; wall %s",
		len(took), busy, len(m.datasets), len(m.names(true)), len(m.names(false)),
		(sum / time.Duration(len(took))).Round(10*time.Millisecond), worst.Round(10*time.Millisecond), time.Since(start).Round(time.Second))
}

// phase is one round's workload phase: its kind and how many Datasets it
// touches.
type phase struct {
	kind phaseKind
	n    int
}

// schedule is the 20 rounds: four creating five Datasets each, then the
// other kinds four times each in a seeded random order (each touching
// three live Datasets, a deletion two).
func schedule(rng *rand.Rand) []phase {
	var rest []phase
	for range 4 {
		rest = append(rest, phase{phaseScale, 3}, phase{phaseOption, 3}, phase{phaseLoad, 3}, phase{phaseDelete, 2})
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	out := make([]phase, 0, datasets)
	for range 4 {
		out = append(out, phase{phaseCreate, datasets / 4})
	}
	return append(out, rest...)
}

// converge waits until the cluster holds exactly what the model asks for
// and returns how long that took, failing the test with every violation
// when it does not within convergeWithin (stretched under -race).
func converge(ctx context.Context, t *testing.T, m *model, ctrl *controller) time.Duration {
	t.Helper()
	start := time.Now()
	var last []string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, testenv.Stretch(convergeWithin), true, func(ctx context.Context) (bool, error) {
		if err := cluster.Check(); err != nil {
			return false, err
		}
		if err := ctrl.exited(); err != nil {
			return false, err
		}
		o, err := observe(ctx, cluster.Client, m.ns)
		if err != nil {
			return false, nil // the API server is busy: look again
		}
		last = violations(m, o)
		return len(last) == 0, nil
	})
	if err != nil {
		t.Fatalf("not converged %s after the restart (%v); still wrong:\n%s", time.Since(start).Round(time.Second), err, strings.Join(last, "\n"))
	}
	return time.Since(start)
}

// currentViolations observes the cluster once and returns what is not yet
// as the model asks.
func currentViolations(ctx context.Context, t *testing.T, m *model) []string {
	t.Helper()
	o, err := observe(ctx, cluster.Client, m.ns)
	if err != nil {
		t.Fatal(err)
	}
	return violations(m, o)
}

// firstOf shows the first few of a list of violations.
func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return " (" + strings.Join(v[:min(3, len(v))], "; ") + ")"
}
