package trading

import (
	"context"
	"time"

	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Viewer is what redacting events for p needs to know (redact.Viewer):
// p's enabled counterparties, which CSDs settle together, and
// participants' public names, each remembered for lookupTTL across the
// readers of one firm. A live subscription asks again every
// ViewerRefresh, so a counterparty change reaches its view.
func (s *Service) Viewer(ctx context.Context, p venue.Principal) (*redact.Viewer, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	v := &redact.Viewer{P: p, Names: s.participantName, Counterparties: map[string]bool{}}
	if p.IsOperator() || p.ParticipantID == "" {
		return v, nil
	}
	now := s.now()
	settlement, err := s.settlement(ctx)
	if err != nil {
		return nil, err
	}
	v.Settlement, v.CSD = settlement, settlement.CSD(p.ParticipantID, "", "")
	if cps, ok := recall(s.lookups, s.lookups.cps, p.ParticipantID, now); ok {
		v.Counterparties = cps
		return v, nil
	}
	cps := map[string]bool{}
	err = s.db.View(ctx, func(tx *store.Tx) error {
		ids, err := tx.Counterparties(ctx, p.ParticipantID)
		clear(cps)
		for _, id := range ids {
			cps[id] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	remember(s.lookups, s.lookups.cps, p.ParticipantID, cps, now.Add(lookupTTL))
	v.Counterparties = cps
	return v, nil
}

// ViewerRefresh is how long a live subscription may keep a Viewer before
// it asks for a new one.
const ViewerRefresh = lookupTTL

// settlement returns which CSDs settle together (remembered for
// lookupTTL).
func (s *Service) settlement(ctx context.Context) (*venue.Settlement, error) {
	if st, ok := recall(s.lookups, s.lookups.settlement, "", s.now()); ok {
		return st, nil
	}
	var st *venue.Settlement
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		st, err = s.settlementIn(ctx, tx)
		return err
	})
	return st, err
}

// settlementIn is settlement read in tx when not remembered.
func (s *Service) settlementIn(ctx context.Context, tx *store.Tx) (*venue.Settlement, error) {
	now := s.now()
	if st, ok := recall(s.lookups, s.lookups.settlement, "", now); ok {
		return st, nil
	}
	st, err := tx.Settlement(ctx)
	if err != nil {
		return nil, err
	}
	remember(s.lookups, s.lookups.settlement, "", st, now.Add(lookupTTL))
	return st, nil
}

// participantName returns a participant's name and LEI, remembered for
// lookupTTL (a renamed firm shows its new name within it). A participant
// that cannot be read shows neither.
func (s *Service) participantName(id string) (name, lei string) {
	now := s.now()
	if v, ok := recall(s.lookups, s.lookups.names, id, now); ok {
		return v[0], v[1]
	}
	v, err, _ := s.lookups.nameReads.Do(id, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var p venue.Participant
		err := s.db.View(ctx, func(tx *store.Tx) error {
			var err error
			p, err = tx.Participant(ctx, id)
			return err
		})
		if err != nil {
			return nil, err
		}
		v := [2]string{p.Name, p.LEI}
		remember(s.lookups, s.lookups.names, id, v, now.Add(lookupTTL))
		return v, nil
	})
	if err != nil {
		s.log.Warn("participant of a book entry not read", "participant", id, "err", err.Error())
		return "", ""
	}
	names := v.([2]string)
	return names[0], names[1]
}
