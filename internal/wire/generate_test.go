package wire

import (
	"bytes"
	"os"
	"testing"

	"github.com/bondvenue/bondvenue/internal/wire/internal/offergen"
)

// TestGeneratedIsFresh: the offer's encoder and the create body's reader
// are what go generate writes from wire.go today.
func TestGeneratedIsFresh(t *testing.T) {
	src, err := os.ReadFile("wire.go")
	if err != nil {
		t.Fatal(err)
	}
	enc, dec, err := offergen.Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{offergen.EncoderFile: enc, offergen.DecoderFile: dec} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what wire.go generates: run go generate ./internal/wire", path)
		}
	}
}
