package sequencer

import (
	"encoding/json"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/google/uuid"
	"github.com/quagmt/udecimal"
)

// This file holds the package's small helpers: its constants, ids, an
// interner of strings, what an idempotency claim keeps.

// hundred turns a percentage or a price per 100 into a fraction.
var hundred = udecimal.MustParse("100")

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// KeepResult is v as an idempotency claim keeps it, to answer a retry of
// the applied request from.
func KeepResult(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("keep the result of an idempotent request: %w", err)
	}
	return b, nil
}

// ErrStandby answers a trading command on a standby.
var ErrStandby = &venue.Error{Kind: venue.KindNotReady,
	Message: "this instance is a standby: the leader runs trading commands; retry (another instance, or this one once it leads)"}

// interner numbers strings of a small set (ids of participants, users,
// markets…; enums), each for the life of the interner.
type interner struct {
	nums  map[string]uint32
	names []string
}

// number returns v's number, giving it the next on first sight.
func (in *interner) number(v string) uint32 {
	n, ok := in.nums[v]
	if !ok {
		if in.nums == nil {
			in.nums = map[string]uint32{}
		}
		n = uint32(len(in.names))
		in.nums[v] = n
		in.names = append(in.names, v)
	}
	return n
}

// name returns the string of number n.
func (in *interner) name(n uint32) string { return in.names[n] }
