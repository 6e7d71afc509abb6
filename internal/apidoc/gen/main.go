// Command gen renders the generated part of the REST reference
// (docs/rest-interface.md) from the OpenAPI document (openapi.yaml),
// keeping the reference's hand-written head. Run it with
//
//	go generate ./internal/apidoc
//
// which runs it in internal/apidoc; the flags' defaults are relative to
// that folder. A test of package apidoc fails when the committed reference
// differs from what this command makes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bondvenue/bondvenue/internal/apidoc/refgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	spec := fs.String("spec", "openapi.yaml", "path of the OpenAPI document")
	ref := fs.String("ref", "../../docs/rest-interface.md", "path of the REST reference")
	if err := fs.Parse(args); err != nil {
		return err
	}
	doc, err := os.ReadFile(*spec)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(*ref)
	if err != nil {
		return err
	}
	out, err := refgen.Update(old, doc)
	if err != nil {
		return fmt.Errorf("%s: %w", *ref, err)
	}
	return os.WriteFile(*ref, out, 0o644)
}
