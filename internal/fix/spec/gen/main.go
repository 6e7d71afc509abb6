// Command gen makes the venue's FIX dictionary (internal/fix/spec/FIXT11.xml
// and FIX50SP2.xml) and its reference (docs/fix-dictionary.md) from the
// standard dictionaries in quickfixgo's spec folder. Run it with
//
//	go generate ./internal/fix/spec
//
// which runs it in internal/fix/spec; the flags' defaults are relative to
// that folder.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bondvenue/bondvenue/internal/fix/spec/specgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	src := fs.String("src", "", "folder with the standard FIXT11.xml and FIX50SP2.xml (default: the spec folder of "+specgen.Module+" as go list -m finds it)")
	origin := fs.String("origin", "", "what -src is, for the provenance comment (default: -src as given)")
	out := fs.String("out", ".", "folder the dictionaries are written to")
	ref := fs.String("ref", "../../../docs/"+specgen.ReferenceFile, "path of the reference")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var source specgen.Source
	var err error
	if *src == "" {
		source, err = specgen.FindSource(".")
	} else {
		if *origin == "" {
			*origin = *src
		}
		source, err = specgen.ReadSource(*src, *origin)
	}
	if err != nil {
		return err
	}
	o, err := specgen.Generate(source)
	if err != nil {
		return err
	}
	return o.WriteFiles(*out, *ref)
}
