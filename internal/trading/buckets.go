package trading

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// BucketInput is a bucket create or update request. Nil fields are not
// changed by an update.
type BucketInput struct {
	Name          *string
	Type          *string
	ParticipantID *string
	IsEnabled     *bool
	InstrumentIDs *[]string
}

// maxBucketInstruments bounds a bucket's size.
const maxBucketInstruments = 1000

func (in BucketInput) validate(create bool) error {
	var v venue.Validator
	if create || in.Name != nil {
		name := ""
		if in.Name != nil {
			name = strings.TrimSpace(*in.Name)
		}
		v.Check(name != "", "name", "is required")
		v.Check(utf8.RuneCountInString(name) <= 200, "name", "must be at most 200 characters")
	}
	if create && in.InstrumentIDs == nil {
		v.Addf("instruments", "is required (an array of instruments with their id)")
	}
	if in.InstrumentIDs != nil {
		ids := *in.InstrumentIDs
		v.Check(len(ids) <= maxBucketInstruments, "instruments", fmt.Sprintf("must hold at most %d instruments", maxBucketInstruments))
		seen := map[string]bool{}
		for i, id := range ids {
			field := fmt.Sprintf("instruments[%d].id", i)
			switch {
			case id == "":
				v.Addf(field, "is required")
			case seen[id]:
				v.Addf(field, "instrument %s is listed twice", id)
			}
			seen[id] = true
		}
	}
	if in.Type != nil {
		v.Check(*in.Type == venue.BucketPrivate || *in.Type == venue.BucketPublic, "type", "must be private or public")
	}
	return v.Err()
}

// CreateBucket creates a private bucket for the caller's firm.
func (s *Service) CreateBucket(ctx context.Context, p venue.Principal, in BucketInput) (BucketView, error) {
	if err := require(p, venue.RoleAdmin, venue.RoleTrader); err != nil {
		return BucketView{}, err
	}
	if in.Type != nil && *in.Type == venue.BucketPublic {
		return BucketView{}, venue.Forbidden("only the venue operator creates public buckets")
	}
	if in.ParticipantID != nil && *in.ParticipantID != "" && *in.ParticipantID != p.ParticipantID {
		return BucketView{}, venue.NotFound("participant")
	}
	return s.createBucket(ctx, p, in, venue.BucketPrivate, p.ParticipantID)
}

// CreatePublicBucket creates a bucket every participant sees (operator).
func (s *Service) CreatePublicBucket(ctx context.Context, p venue.Principal, in BucketInput) (BucketView, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return BucketView{}, err
	}
	return s.createBucket(ctx, p, in, venue.BucketPublic, "")
}

// createBucket creates a bucket for p: the audit trail records the
// operator's (public ones), not a firm's watch lists.
func (s *Service) createBucket(ctx context.Context, p venue.Principal, in BucketInput, typ, owner string) (BucketView, error) {
	id, now := newID(), s.clock()
	var out BucketView
	var created venue.Bucket
	err := s.bucketTx(ctx, p, &created, func(tx *store.Tx) (change, error) {
		if err := checkBucket(ctx, tx, in, true); err != nil {
			return change{}, err
		}
		b := venue.Bucket{ID: id, Name: strings.TrimSpace(*in.Name), Type: typ, ParticipantID: owner,
			IsEnabled: true, InstrumentIDs: *in.InstrumentIDs, CreatedAt: now, UpdatedAt: now}
		if in.IsEnabled != nil {
			b.IsEnabled = *in.IsEnabled
		}
		if err := tx.CreateBucket(ctx, &b); err != nil {
			return change{}, err
		}
		created = b
		return change{action: "bucket.create", entityType: "bucket", entityID: b.ID, after: b}, nil
	})
	if err == nil {
		out, err = s.bucketView(ctx, created)
	}
	if err != nil {
		return out, fmt.Errorf("create bucket: %w", err)
	}
	return out, nil
}

// bucketView resolves one bucket's instruments, in a read transaction of
// its own: the books come from the sequencer, which a write transaction
// held meanwhile could keep from committing (SQLite has one writer).
func (s *Service) bucketView(ctx context.Context, b venue.Bucket) (BucketView, error) {
	var out BucketView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		views, err := s.bucketViews(ctx, tx, []venue.Bucket{b})
		if err == nil {
			out = views[0]
		}
		return err
	})
	return out, err
}

// checkBucket reports every issue of a bucket create (or update) request
// at once: those of its fields and each listed instrument the venue does
// not have.
func checkBucket(ctx context.Context, tx *store.Tx, in BucketInput, create bool) error {
	var v venue.Validator
	if err := v.Merge(in.validate(create)); err != nil {
		return err
	}
	if in.InstrumentIDs != nil && len(*in.InstrumentIDs) <= maxBucketInstruments {
		if err := v.Merge(checkInstruments(ctx, tx, *in.InstrumentIDs)); err != nil {
			return err
		}
	}
	return v.Err()
}

// checkInstruments answers a validation error naming every unknown
// instrument id. Empty and repeated ids are validate's to report.
func checkInstruments(ctx context.Context, tx *store.Tx, ids []string) error {
	var v venue.Validator
	seen := map[string]bool{}
	for i, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if !validID(id) {
			v.Addf(fmt.Sprintf("instruments[%d].id", i), "unknown instrument %q", id)
			continue
		}
		if _, err := tx.Instrument(ctx, id); err != nil {
			if venue.KindOf(err) == venue.KindNotFound {
				v.Addf(fmt.Sprintf("instruments[%d].id", i), "unknown instrument %q", id)
				continue
			}
			return err
		}
	}
	return v.Err()
}

// BucketFilter selects buckets in the index. Zero fields do not filter.
type BucketFilter struct {
	Type      string
	IsEnabled *bool
}

// Buckets lists public buckets and the caller's private ones (all buckets
// for the operator).
func (s *Service) Buckets(ctx context.Context, p venue.Principal, f BucketFilter, page venue.Page) (List[BucketView], error) {
	var out List[BucketView]
	err := s.db.View(ctx, func(tx *store.Tx) error {
		bs, next, err := tx.Buckets(ctx, store.BucketFilter{VisibleTo: p.ParticipantID, Type: f.Type, IsEnabled: f.IsEnabled}, page)
		if err != nil {
			return err
		}
		out.Next = next
		out.Items, err = s.bucketViews(ctx, tx, bs)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list buckets: %w", err)
	}
	return out, nil
}

// Bucket returns one visible bucket.
func (s *Service) Bucket(ctx context.Context, p venue.Principal, id string) (BucketView, error) {
	var out BucketView
	err := s.db.View(ctx, func(tx *store.Tx) error {
		b, err := visibleBucket(ctx, tx, p, id)
		if err != nil {
			return err
		}
		views, err := s.bucketViews(ctx, tx, []venue.Bucket{b})
		if err == nil {
			out = views[0]
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("get bucket: %w", err)
	}
	return out, nil
}

// UpdateBucket changes one of the caller's private buckets.
func (s *Service) UpdateBucket(ctx context.Context, p venue.Principal, id string, in BucketInput) (BucketView, error) {
	if err := require(p, venue.RoleAdmin, venue.RoleTrader, venue.RoleOperator); err != nil {
		return BucketView{}, err
	}
	var out BucketView
	var updated venue.Bucket
	err := s.bucketTx(ctx, p, &updated, func(tx *store.Tx) (change, error) {
		if err := checkBucket(ctx, tx, in, false); err != nil {
			return change{}, err
		}
		b, err := s.writableBucket(ctx, tx, p, id)
		if err != nil {
			return change{}, err
		}
		before := b
		b.InstrumentIDs = slices.Clone(b.InstrumentIDs)
		if in.Name != nil {
			b.Name = strings.TrimSpace(*in.Name)
		}
		if in.IsEnabled != nil {
			b.IsEnabled = *in.IsEnabled
		}
		if in.InstrumentIDs != nil {
			b.InstrumentIDs = *in.InstrumentIDs
		}
		b.UpdatedAt = tx.Now()
		updated = b
		err = tx.UpdateBucket(ctx, &b)
		return change{action: "bucket.update", entityType: "bucket", entityID: b.ID, before: before, after: b}, err
	})
	if err == nil {
		out, err = s.bucketView(ctx, updated)
	}
	if err != nil {
		return out, fmt.Errorf("update bucket: %w", err)
	}
	return out, nil
}

// DeleteBucket deletes one of the caller's private buckets and returns its
// final state.
func (s *Service) DeleteBucket(ctx context.Context, p venue.Principal, id string) (BucketView, error) {
	if err := require(p, venue.RoleAdmin, venue.RoleTrader, venue.RoleOperator); err != nil {
		return BucketView{}, err
	}
	var out BucketView
	var deleted venue.Bucket
	err := s.bucketTx(ctx, p, &deleted, func(tx *store.Tx) (change, error) {
		b, err := s.writableBucket(ctx, tx, p, id)
		if err != nil {
			return change{}, err
		}
		deleted = b
		return change{action: "bucket.delete", entityType: "bucket", entityID: b.ID, before: b}, tx.DeleteBucket(ctx, id)
	})
	if err == nil {
		// Its final state: the instruments it held, which outlive it.
		out, err = s.bucketView(ctx, deleted)
	}
	if err != nil {
		return out, fmt.Errorf("delete bucket: %w", err)
	}
	return out, nil
}

// bucketTx runs a bucket write by p: with its audit entry when p is the
// operator (whose buckets are the venue's public lists, and who may change
// any), without one for a firm's own watch lists.
func (s *Service) bucketTx(ctx context.Context, p venue.Principal, result any, fn func(*store.Tx) (change, error)) error {
	if p.IsOperator() {
		return s.adminTx(ctx, p, result, fn)
	}
	return s.inTx(ctx, result, func(tx *store.Tx) error {
		_, err := fn(tx)
		return err
	})
}

// writableBucket loads a bucket the caller may change: its own private
// bucket, or any bucket for the operator. A public bucket is visible to
// participants but not theirs to change: not found, like any record that is
// not the caller's (docs/guide.md, "Who sees what").
func (s *Service) writableBucket(ctx context.Context, tx *store.Tx, p venue.Principal, id string) (venue.Bucket, error) {
	b, err := visibleBucket(ctx, tx, p, id)
	if err != nil {
		return b, err
	}
	if b.Type == venue.BucketPublic && !p.IsOperator() {
		return venue.Bucket{}, venue.NotFound("bucket")
	}
	return b, nil
}

// bucketViews resolves the instruments of each bucket, in bucket order.
func (s *Service) bucketViews(ctx context.Context, tx *store.Tx, bs []venue.Bucket) ([]BucketView, error) {
	out := make([]BucketView, 0, len(bs))
	for _, b := range bs {
		ins := make([]venue.Instrument, 0, len(b.InstrumentIDs))
		for _, id := range b.InstrumentIDs {
			in, err := tx.Instrument(ctx, id)
			if err != nil {
				return nil, err
			}
			ins = append(ins, in)
		}
		views, err := s.instrumentViews(ctx, tx, venue.Principal{}, ins, "", ListDepth)
		if err != nil {
			return nil, err
		}
		out = append(out, BucketView{Bucket: b, Instruments: views})
	}
	return out, nil
}

// BucketView is a bucket with its instruments resolved.
type BucketView struct {
	venue.Bucket
	Instruments []InstrumentView
}
