package trading

import (
	"github.com/bondvenue/bondvenue/internal/idempotency"
)

// WithClaim returns the Service bound to claim c: the same service, whose
// every write (a use case's own transaction, a sequencer command) also
// marks c applied in the transaction that applies it. The claim is a value
// the adapter holds and passes on explicitly, never a context value: the
// use cases stay unaware of it, and a request run on the plain Service is
// simply not idempotent.
func (s *Service) WithClaim(c *idempotency.Claim) *Service {
	rec := c.Record()
	out := &Service{core: s.core, claim: &rec, reason: s.reason}
	if c.Replayed() {
		result := c.Result()
		out.replay = &result
	}
	return out
}
