package fixstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
)

// TestStore: a session's state and kept messages, on both engines, as the
// gateway's message stores use them.
func TestStore(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		ctx := t.Context()
		s := fixstore.New(testenv.Open(t, e))
		const id = "FIXT.1.1:BONDVENUE->C1"
		created := time.UnixMilli(1_700_000_000_000).UTC()

		if _, ok, err := s.PeekSession(ctx, id); err != nil || ok {
			t.Fatalf("PeekSession(new) = _, %v, %v, want none", ok, err)
		}
		st, err := s.LoadSession(ctx, id, created)
		want := fix.SessionState{ID: id, NextSender: 1, NextTarget: 1, CreatedAt: created}
		if err != nil || !st.CreatedAt.Equal(created) || st.NextSender != 1 || st.NextTarget != 1 {
			t.Fatalf("LoadSession = %+v, %v, want %+v", st, err, want)
		}
		if err := s.SaveMessage(ctx, id, 1, []byte("m1"), 2, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveMessage(ctx, id, 2, []byte("m2"), 3, 7); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSeqNums(ctx, id, 0, 5); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.PeekSession(ctx, id)
		want = fix.SessionState{ID: id, NextSender: 3, NextTarget: 5, CreatedAt: created, LastEventSeq: 7}
		if err != nil || !ok {
			t.Fatalf("PeekSession = %v, %v", ok, err)
		}
		got.CreatedAt = got.CreatedAt.UTC()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PeekSession (-want +got):\n%s", diff)
		}
		var msgs []string
		if err := s.Messages(ctx, id, 2, 0, func(seq int, m []byte) error {
			msgs = append(msgs, string(m))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"m2"}, msgs); diff != "" {
			t.Errorf("Messages(2..) (-want +got):\n%s", diff)
		}

		// A reset renumbers and forgets the messages, not the last event.
		reset := created.Add(24 * time.Hour)
		if err := s.ResetSession(ctx, id, reset); err != nil {
			t.Fatal(err)
		}
		got, _, err = s.PeekSession(ctx, id)
		if err != nil || got.NextSender != 1 || got.NextTarget != 1 || !got.CreatedAt.Equal(reset) || got.LastEventSeq != 7 {
			t.Errorf("after ResetSession: %+v, %v", got, err)
		}
		if err := s.Messages(ctx, id, 1, 0, func(int, []byte) error { return errors.New("a message kept after a reset") }); err != nil {
			t.Error(err)
		}
		if err := s.SaveSession(ctx, fix.SessionState{ID: id, NextSender: 9, NextTarget: 4, CreatedAt: reset}); err != nil {
			t.Fatal(err)
		}
		if got, _, _ = s.PeekSession(ctx, id); got.NextSender != 9 || got.NextTarget != 4 || got.LastEventSeq != 7 {
			t.Errorf("after SaveSession: %+v", got)
		}

		// A CompID belongs to the credential of its first logon.
		if err := s.BindCompID(ctx, "C1", "client-a", created); err != nil {
			t.Fatal(err)
		}
		if err := s.BindCompID(ctx, "C1", "client-a", created); err != nil {
			t.Errorf("BindCompID(same credential) = %v, want nil", err)
		}
		if err := s.BindCompID(ctx, "C1", "client-b", created); !errors.Is(err, fix.ErrCompIDTaken) {
			t.Errorf("BindCompID(another credential) = %v, want %v", err, fix.ErrCompIDTaken)
		}
	})
}
