package apidoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/apidoc/refgen"
)

// TestRESTReference fails when docs/rest-interface.md is not what the
// generator makes from the OpenAPI document: a change to the document
// must come with the reference made again.
func TestRESTReference(t *testing.T) {
	path := filepath.Join(repoRoot, "docs", "rest-interface.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := refgen.Update(got, specYAML)
	if err != nil {
		t.Fatalf("refgen.Update(docs/rest-interface.md, openapi.yaml) = %v", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		n := 0
		for n < len(gl) && n < len(wl) && gl[n] == wl[n] {
			n++
		}
		line := func(ls []string) string {
			if n < len(ls) {
				return ls[n]
			}
			return "(end of file)"
		}
		t.Errorf("docs/rest-interface.md is out of date with openapi.yaml: run go generate ./internal/apidoc\nfirst difference at line %d:\n have %s\n want %s",
			n+1, line(gl), line(wl))
	}
}
