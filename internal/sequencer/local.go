package sequencer

import (
	"encoding/json"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/google/uuid"
	"github.com/quagmt/udecimal"
)

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
