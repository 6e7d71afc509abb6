package trading

import (
	"encoding/json"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// WithClaim returns the Service bound to claim c: the same service, whose
// every write (a use case's own transaction, a sequencer command) also
// marks c applied in the transaction that applies it. The claim is a value
// the adapter holds and passes on explicitly, never a context value: the
// use cases stay unaware of it, and a request run on the plain Service is
// simply not idempotent.
func (s *Service) WithClaim(c *idempotency.Claim) *Service {
	rec := c.Record()
	out := &Service{core: s.core, claim: &rec}
	if c.Replayed() {
		result := c.Result()
		out.replay = &result
	}
	return out
}

// errNoResult answers a retry of a request applied by an earlier version of
// the venue, which kept no result with the change, and whose answer was
// lost: there is nothing to answer it from.
var errNoResult = venue.Conflict("the request with this Idempotency-Key was applied, but by a version of the venue " +
	"that kept no result to answer a retry from; it is not applied again: read the record to see its outcome")

// replaying reports whether s answers an applied request from its kept
// result instead of running it.
func (s *Service) replaying() bool { return s.replay != nil }

// replayed decodes the kept result of the applied request s replays into
// out.
func (s *Service) replayed(out any) error {
	if len(*s.replay) == 0 {
		return errNoResult
	}
	if err := json.Unmarshal(*s.replay, out); err != nil {
		return fmt.Errorf("read the kept result of an idempotent request: %w", err)
	}
	return nil
}
