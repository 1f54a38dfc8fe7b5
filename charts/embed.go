package charts

import (
	"embed"
	"io/fs"
)

//go:embed all:juicefs all:alluxio all:jindo all:thin all:fake all:fakeop all:dataop all:cachecleanup
var all embed.FS

// Each engine's chart: the directory's files, rooted at Chart.yaml.
var (
	JuiceFS = mustSub("juicefs")
	Alluxio = mustSub("alluxio")
	Jindo   = mustSub("jindo")
	Thin    = mustSub("thin")
	// Fake is the test engine's chart: workers (and optionally a master)
	// of a pause image, nothing else.
	Fake = mustSub("fake")
	// FakeOp is the test engine's data-operation chart: one pause-image Job,
	// or a CronJob whose runs start suspended.
	FakeOp = mustSub("fakeop")
)

// DataOp is the chart of one data operation: the Job, or the CronJob for
// policy Cron, that runs it (values from engines/workloads/dataop).
var DataOp = mustSub("dataop")

// CacheCleanup is the chart of a deleted runtime's cache cleanup: the Jobs
// that free its cache and remove its cache directories on the nodes that
// held it (values from engines/workloads/cachecleanup).
var CacheCleanup = mustSub("cachecleanup")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(all, dir)
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}
