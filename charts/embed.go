package charts

import (
	"embed"
	"io/fs"
)

//go:embed all:juicefs
var all embed.FS

// JuiceFS is the JuiceFS engine's chart (the directory's files, rooted at
// Chart.yaml).
var JuiceFS = mustSub("juicefs")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(all, dir)
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}
