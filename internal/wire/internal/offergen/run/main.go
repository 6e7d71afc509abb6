// Command run writes the generated files of package offergen; go generate
// runs it in internal/wire.
package main

import (
	"fmt"
	"os"

	"github.com/bondvenue/bondvenue/internal/wire/internal/offergen"
)

func main() {
	src, err := os.ReadFile("wire.go")
	if err == nil {
		var enc, dec []byte
		if enc, dec, err = offergen.Generate(src); err == nil {
			if err = os.WriteFile(offergen.EncoderFile, enc, 0o644); err == nil {
				err = os.WriteFile(offergen.DecoderFile, dec, 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "offergen:", err)
		os.Exit(1)
	}
}
