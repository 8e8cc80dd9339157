// Command mkscripts renders the packages' maintainer scripts
// (packaging/scripts) into a directory; packaging/build.sh runs it before
// nfpm, which reads them from dist/stage/scripts:
//
//	go run ./packaging/scripts/mkscripts -out dist/stage/scripts
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/corrosion/corrosion/packaging/scripts"
)

func main() {
	out := flag.String("out", "dist/stage/scripts", "directory for the rendered scripts")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mkscripts: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if err := scripts.Render(*out); err != nil {
		fmt.Fprintf(os.Stderr, "mkscripts: %v\n", err)
		os.Exit(1)
	}
}
