package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

func main() {
	o := &Options{}
	var created string
	flag.StringVar(&o.Binary, "binary", "bin/sluice-linux", "the static Linux binary to put at /sluice")
	flag.StringVar(&o.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the PEM CA bundle to put at "+caPath)
	flag.StringVar(&o.Output, "output", "bin/sluice-image.tar", "the image tarball to write")
	flag.StringVar(&o.Repository, "repository", "ghcr.io/sluice-data/sluice", "the image's repository (its name without the tag)")
	flag.StringVar(&o.Version, "version", "dev", "the image tag and version label")
	flag.StringVar(&o.Revision, "revision", "", "the VCS revision label")
	flag.StringVar(&o.Source, "source", "https://github.com/sluice-data/sluice", "the source repository label")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "the binary's architecture")
	flag.StringVar(&created, "created", "", "RFC 3339 time of the image and its files (default: $SOURCE_DATE_EPOCH, else now)")
	flag.Parse()
	if err := run(o, created); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(o *Options, created string) error {
	var err error
	switch {
	case created != "":
		o.Created, err = time.Parse(time.RFC3339, created)
	case os.Getenv("SOURCE_DATE_EPOCH") != "":
		var secs int64
		_, err = fmt.Sscan(os.Getenv("SOURCE_DATE_EPOCH"), &secs)
		o.Created = time.Unix(secs, 0)
	default:
		o.Created = time.Now()
	}
	if err != nil {
		return fmt.Errorf("the creation time: %w", err)
	}
	o.Created = o.Created.UTC().Truncate(time.Second)
	if err := Build(o); err != nil {
		return err
	}
	if err := Verify(o.Output, o); err != nil {
		return fmt.Errorf("%s does not read back as built: %w", o.Output, err)
	}
	ref, _ := o.Ref()
	st, err := os.Stat(o.Output)
	if err != nil {
		return err
	}
	fmt.Printf("imagebuild: wrote %s (%s, %d MiB)\n", o.Output, ref.Name(), st.Size()>>20)
	return nil
}
