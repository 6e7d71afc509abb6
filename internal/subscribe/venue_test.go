package subscribe_test

import (
	"github.com/quagmt/udecimal"
)

func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

func ptrTo[T any](v T) *T { return &v }
