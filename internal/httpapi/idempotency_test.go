package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
)

// TestIdempotency replays every kind of write under an Idempotency-Key
// (create, amend, cancel, accept: each applied once, the retry answered
// with the first answer) and puts keys in the states a crash or a failed
// answer leaves them in: a request applied whose answer was not kept is
// never applied again and its retry gets the answer the first request
// got, one that was not applied is run again once its claim is known dead,
// and one still in flight is a 409.
func TestIdempotency(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		x := newTV(t, v)
		p := x.participant
		in := x.ins[0]
		key := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
		// replayed checks that again is first replayed; an error's id is
		// its own request's (the harness checks it equals X-Request-Id).
		replayed := func(t *testing.T, first, again *response) {
			t.Helper()
			want := bytes.Replace(first.body, []byte(first.header.Get("X-Request-Id")), []byte(again.header.Get("X-Request-Id")), 1)
			if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, want) || again.status != first.status {
				t.Errorf("retry: %d Idempotent-Replayed %q, same body %v; want the first answer %d again",
					again.status, again.header.Get("Idempotent-Replayed"), bytes.Equal(again.body, first.body), first.status)
			}
		}

		t.Run("replays", func(t *testing.T) {
			o := x.create(t, trader(0), offer(in, x.book, "bid", "90", "100000"))
			path := offersPath + "/" + id(o)
			first := x.send(t, trader(0), "PUT", path, entity("quantity", "200000"), http.StatusOK, key("amend-1"))
			replayed(t, first, x.send(t, trader(0), "PUT", path, entity("quantity", "200000"), http.StatusOK, key("amend-1")))
			x.wantUse(t, trader(0), "0", "200000", "200000")

			first = x.send(t, trader(0), "DELETE", path, nil, http.StatusOK, key("cancel-1"))
			replayed(t, first, x.send(t, trader(0), "DELETE", path, nil, http.StatusOK, key("cancel-1")))
			x.refused(t, trader(0), "DELETE", path, nil, http.StatusConflict) // without the key: already cancelled

			r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
				"counterparties": []string{p(1)}})
			q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
				"quantity": "1000000", "matched_offer_id": id(r)})
			accept := offersPath + "/" + id(q) + "/accept"
			first = x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, key("accept-1"))
			replayed(t, first, x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, key("accept-1")))
			if trades := x.tradesOf(t, viewer(0), id(q)); len(trades) != 1 {
				t.Errorf("%d trades after a replayed accept, want 1", len(trades))
			}
		})

		t.Run("applied, answer lost", func(t *testing.T) {
			// Each request is applied and its answer dropped, as a process
			// that died after the commit leaves it; the retry gets the
			// answer the first request got, never a second application.
			// Through the sequencer: an offer.
			body := set(offer(in, x.book, "bid", "95", "100000"), "notes", "answer-lost")
			first := x.send(t, trader(0), "POST", offersPath, body, http.StatusOK, key("lost-1"))
			v.dropAnswer(t, trader(0), "lost-1")
			replayed(t, first, x.send(t, trader(0), "POST", offersPath, body, http.StatusOK, key("lost-1")))
			n := 0
			for _, o := range x.list(t, viewer(0), offersPath+"?limit=1000") {
				if o["notes"] == "answer-lost" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d offers of the request, want 1", n)
			}
			// An amendment, its offer cancelled since: the retry still gets
			// the offer as the amendment committed it, not a 409.
			path := offersPath + "/" + id(obj(first.object(t)))
			first = x.send(t, trader(0), "PUT", path, entity("quantity", "300000"), http.StatusOK, key("lost-amend"))
			v.dropAnswer(t, trader(0), "lost-amend")
			x.send(t, trader(0), "DELETE", path, nil, http.StatusOK, nil)
			replayed(t, first, x.send(t, trader(0), "PUT", path, entity("quantity", "300000"), http.StatusOK, key("lost-amend")))

			// A quote accepted: the retry gets the trade, the only one.
			r := x.rfq(t, trader(0), obj{"instrument_id": in, "market_id": x.otc, "direction": "bid", "quantity": "1000000",
				"counterparties": []string{p(1)}})
			q := x.create(t, trader(1), obj{"instrument_id": in, "market_id": x.otc, "direction": "ask", "price_per_unit": "100",
				"quantity": "1000000", "matched_offer_id": id(r)})
			accept := offersPath + "/" + id(q) + "/accept"
			first = x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, key("lost-accept"))
			v.dropAnswer(t, trader(0), "lost-accept")
			replayed(t, first, x.send(t, trader(0), "PUT", accept, nil, http.StatusOK, key("lost-accept")))
			if trades := x.tradesOf(t, viewer(0), id(q)); len(trades) != 1 {
				t.Errorf("%d trades after a replayed accept, want 1", len(trades))
			}
			// Kept now: a further retry replays the kept answer.
			if rec := v.keyRecord(t, trader(0), "lost-accept"); rec.StatusCode != http.StatusOK {
				t.Errorf("the replayed accept's answer was not kept: status %d", rec.StatusCode)
			}

			// Through a use case's own transaction: a bucket.
			bucket := obj{"name": "Lost answer", "instruments": []obj{{"id": in}}}
			first = x.send(t, trader(0), "POST", "/api/v1/participant/buckets", bucket, http.StatusAccepted, key("lost-2"))
			v.dropAnswer(t, trader(0), "lost-2")
			replayed(t, first, x.send(t, trader(0), "POST", "/api/v1/participant/buckets", bucket, http.StatusAccepted, key("lost-2")))
			n = 0
			for _, b := range x.list(t, viewer(0), "/api/v1/participant/buckets") {
				if b["name"] == "Lost answer" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d buckets of the request, want 1", n)
			}
		})

		t.Run("not applied: taken over", func(t *testing.T) {
			bad := offer(in, x.book, "bid", "80", "123") // below min_piece: refused, nothing applied
			x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("dead-1"))
			// As if its handler had died before keeping the answer: the
			// claim is the running engine's, but nobody serves it.
			v.dropAnswer(t, trader(0), "dead-1")
			again := x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("dead-1"))
			if !bytes.Contains(again.body, []byte("min_piece")) {
				t.Errorf("the taken-over request answered %s", again.body)
			}
			if again.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("a taken-over request was replayed, not run")
			}
			replayed(t, again, x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("dead-1")))

			// A claim of a later lease is another live instance's: in
			// flight, never taken over.
			x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("later-1"))
			v.moveEpoch(t, trader(0), "later-1", +1)
			busy := x.send(t, trader(0), "POST", offersPath, bad, http.StatusConflict, key("later-1"))
			if !strings.Contains(string(busy.body), "in flight") {
				t.Errorf("retry of a later lease's claim: %s", busy.body)
			}

			// A claim of an earlier sequencer lease is taken over at once:
			// the engine that made it is fenced.
			x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("dead-2"))
			v.moveEpoch(t, trader(0), "dead-2", -1)
			again = x.send(t, trader(0), "POST", offersPath, bad, http.StatusBadRequest, key("dead-2"))
			if again.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("a request of an earlier lease's dead claim was replayed, not run")
			}
		})
	})
}

// keyRecord reads user w's record of an Idempotency-Key.
func (v *env) keyRecord(t *testing.T, w who, key string) store.IdempotencyRecord {
	t.Helper()
	ctx := context.Background()
	var cur store.IdempotencyRecord
	errNone := errors.New("no record")
	err := v.db.InTx(ctx, func(tx *store.Tx) error {
		var claimed bool
		var err error
		cur, claimed, err = tx.ClaimIdempotencyKey(ctx, store.IdempotencyRecord{UserID: v.user(w), Key: key, RequestHash: "probe",
			CreatedAt: v.clock.Now(), Claim: "probe"}, time.Time{})
		if err == nil && claimed {
			return errNone // rolled back
		}
		return err
	})
	if err != nil {
		t.Fatalf("idempotency record %s: %v", key, err)
	}
	return cur
}

// dropAnswer forgets the kept answer of user w's key, as a process that
// died after the request's commit and before keeping its answer leaves it.
func (v *env) dropAnswer(t *testing.T, w who, key string) {
	t.Helper()
	rec := v.keyRecord(t, w, key)
	ctx := context.Background()
	if err := v.db.InTx(ctx, func(tx *store.Tx) error {
		return tx.FinishIdempotencyKey(ctx, store.IdempotencyClaim{UserID: rec.UserID, Key: key, Claim: rec.Claim}, 0, nil)
	}); err != nil {
		t.Fatal(err)
	}
}

// moveEpoch turns user w's key, answered but not applied, into a claim
// without an answer under the sequencer lease by epochs away from the
// running one.
func (v *env) moveEpoch(t *testing.T, w who, key string, by int64) {
	t.Helper()
	rec := v.keyRecord(t, w, key)
	if !rec.CommittedAt.IsZero() {
		t.Fatalf("key %s: the request was applied", key)
	}
	ctx := context.Background()
	if err := v.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ReleaseIdempotencyKey(ctx, store.IdempotencyClaim{UserID: rec.UserID, Key: key, Claim: rec.Claim}); err != nil {
			return err
		}
		old := rec
		old.StatusCode, old.Response, old.Claim, old.Epoch = 0, nil, "moved", rec.Epoch+by
		_, claimed, err := tx.ClaimIdempotencyKey(ctx, old, time.Time{})
		if err == nil && !claimed {
			err = errors.New("not claimed")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
