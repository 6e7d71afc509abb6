package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuckets covers creating, changing and deleting buckets, in order on
// a fresh venue per engine.
func TestBuckets(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		ins := v.instruments(t)
		stamp := pinned.Format("2006-01-02T15:04:05.000Z")

		// A client sends a whole Bucket record: server-owned and unknown
		// fields are ignored, the instrument elements' extra fields too.
		created := v.run(t, call{name: "buckets_create", as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: map[string]any{
			"id": missingID, "name": "  EUR govies  ", "type": "public", "participant_id": v.participant(0), "is_enabled": true,
			"createdAt": "2020-01-01 00:00:00", "updatedAt": "2020-01-01 00:00:00", "color": "blue",
			"instruments": []map[string]any{
				{"id": ins[2], "book_runner": "X", "exchange": "Y", "unit_quotation": "percent",
					"instrument_limits": map[string]any{"ask": []any{}, "bid": []any{}}, "createdAt": "2020-01-01 00:00:00", "updatedAt": nil},
				{"id": ins[0]},
			},
		}, want: 202}).object(t)
		bucket := created["id"].(string)

		t.Run("create answers the full record", func(t *testing.T) {
			if bucket == missingID || created["type"] != "private" || created["participant_id"] != v.participant(0) ||
				created["name"] != "EUR govies" || created["createdAt"] != stamp {
				t.Errorf("created bucket = id %v type %v participant %v name %q createdAt %v; want a new private bucket of firm 0",
					bucket, created["type"], created["participant_id"], created["name"], created["createdAt"])
			}
			got := created["instruments"].([]any)
			if len(got) != 2 {
				t.Fatalf("%d instruments, want 2", len(got))
			}
			for i, want := range []string{ins[2], ins[0]} {
				in := got[i].(map[string]any)
				if in["id"] != want {
					t.Errorf("instrument %d = %v, want %s (request order)", i, in["id"], want)
				}
				for _, k := range []string{"isin", "name", "coupon", "maturity", "instrument_limits", "createdAt"} {
					if _, ok := in[k]; !ok {
						t.Errorf("instrument %d lacks %s: not a full record", i, k)
					}
				}
				if _, ok := in["min_piece"].(string); !ok {
					t.Errorf("instrument %d min_piece = %#v, want a string", i, in["min_piece"])
				}
			}
		})

		big := strings.Repeat("n", 201)
		v.runAll(t, []call{
			{name: "buckets_create_other_firm", as: admin(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "x", "participant_id": v.participant(3), "instruments": []any{}}, want: 404},
			{as: admin(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "x", "participant_id": "nope", "instruments": []any{}}, want: 404},
			{as: admin(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "empty", "participant_id": nil, "instruments": []any{}}, want: 202},
			{name: "buckets_create_malformed", as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{"name": "x", "instruments": [`), want: 400},
			{name: "buckets_create_wrong_type", as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: raw(`{"name": 5, "instruments": []}`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{"name": "x", "instruments": "all"}`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{"name": "x", "instruments": [{"id": 7}]}`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{"name": "x", "instruments": [], "is_enabled": "yes"}`), want: 400},
			{name: "buckets_create_missing_fields", as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{}`), want: 400},
			{name: "buckets_create_invalid_instruments", as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "x", "instruments": []map[string]any{{"id": missingID}, {"id": "nope"}, {"id": ""}}}, want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "x", "instruments": []map[string]any{{"id": ins[0]}, {"id": ins[0]}}}, want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": big, "instruments": []any{}}, want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "   ", "instruments": []any{}}, want: 400},
			{name: "buckets_create_content_type", as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				header: map[string]string{"Content-Type": "text/plain"}, body: raw(`{"name": "x", "instruments": []}`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", want: 400}, // no body
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`[{"name": "x"}]`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`{"name": "x", "instruments": []} {}`), want: 400},
			{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: raw(`null`), want: 400},
			{name: "buckets_create_viewer", as: viewer(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "x", "instruments": []any{}}, want: 403},
			{as: operator, method: "POST", path: "/api/v1/participant/buckets", body: map[string]any{"name": "x", "instruments": []any{}}, want: 403},
		})

		t.Run("read back", func(t *testing.T) {
			v.run(t, call{name: "buckets_get_own", as: viewer(0), method: "GET", path: "/api/v1/participant/buckets/" + bucket, want: 200})
			v.get(t, admin(1), "/api/v1/participant/buckets/"+bucket, http.StatusNotFound)
			v.get(t, operator, "/api/v1/participant/buckets/"+bucket, http.StatusOK)
			mine := ids(v.get(t, viewer(0), "/api/v1/participant/buckets", http.StatusOK).array(t))
			if !contains(mine, bucket) || !contains(mine, v.publicBucket(t)) {
				t.Errorf("firm 0's buckets %v lack its own %s or the public one", mine, bucket)
			}
			theirs := ids(v.get(t, viewer(1), "/api/v1/participant/buckets", http.StatusOK).array(t))
			if contains(theirs, bucket) {
				t.Errorf("firm 1 lists firm 0's private bucket")
			}
			// The participants index and the instrument carry it too.
			p := v.get(t, trader(0), "/api/v1/participants", http.StatusOK).array(t)[0]
			found := false
			for _, b := range p["buckets"].([]any) {
				found = found || b.(map[string]any)["id"] == bucket
			}
			if !found {
				t.Error("participants index lacks the new bucket")
			}
			// ins[2] is also in the public bucket.
			inOwn := ids(toObjects(v.get(t, trader(0), "/api/v1/instruments/"+ins[2], http.StatusOK).object(t)["buckets"]))
			inTheirs := ids(toObjects(v.get(t, trader(1), "/api/v1/instruments/"+ins[2], http.StatusOK).object(t)["buckets"]))
			if !contains(inOwn, bucket) || contains(inTheirs, bucket) || len(inOwn) != len(inTheirs)+1 {
				t.Errorf("instrument buckets: firm 0 %v, firm 1 %v; want firm 0's private bucket for firm 0 only", inOwn, inTheirs)
			}
		})

		t.Run("update", func(t *testing.T) {
			r := v.run(t, call{name: "buckets_update", as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket,
				body: map[string]any{"entity": map[string]any{"name": "Core EUR", "is_enabled": false,
					"instruments": []map[string]any{{"id": ins[3], "exchange": "Z"}},
					"id":          missingID, "type": "public", "participant_id": v.participant(3), "createdAt": "2020-01-01"}}, want: 200}).object(t)
			if r["id"] != bucket || r["type"] != "private" || r["participant_id"] != v.participant(0) || r["name"] != "Core EUR" ||
				r["is_enabled"] != false || len(r["instruments"].([]any)) != 1 {
				t.Errorf("updated bucket = %v", r)
			}
			got := v.get(t, viewer(0), "/api/v1/participant/buckets/"+bucket, http.StatusOK).object(t)
			if diff := cmp.Diff(r, got); diff != "" {
				t.Errorf("GET after PUT differs from the PUT answer (-put +get):\n%s", diff)
			}
			// A partial entity changes only what it names.
			r = v.run(t, call{as: trader(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket,
				body: map[string]any{"entity": map[string]any{"is_enabled": true}}, want: 200}).object(t)
			if r["name"] != "Core EUR" || r["is_enabled"] != true || len(r["instruments"].([]any)) != 1 {
				t.Errorf("partial update = %v", r)
			}
		})

		t.Run("idempotency key", func(t *testing.T) {
			key := map[string]string{"Idempotency-Key": "bucket-create-1"}
			body := map[string]any{"name": "Retried", "instruments": []map[string]any{{"id": ins[4]}}}
			first := v.run(t, call{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: body, header: key, want: 202})
			again := v.run(t, call{as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: body, header: key, want: 202})
			if string(first.body) != string(again.body) {
				t.Errorf("retry answered %s, want the first answer %s", again.body, first.body)
			}
			v.run(t, call{name: "buckets_create_idempotency_mismatch", as: trader(0), method: "POST", path: "/api/v1/participant/buckets",
				body: map[string]any{"name": "Other", "instruments": []any{}}, header: key, want: 422})
			// The key is the user's: another user's same key is a new request.
			v.run(t, call{as: admin(0), method: "POST", path: "/api/v1/participant/buckets", body: body, header: key, want: 202})
			n := 0
			for _, b := range v.get(t, viewer(0), "/api/v1/participant/buckets", http.StatusOK).array(t) {
				if b["name"] == "Retried" {
					n++
				}
			}
			if n != 2 {
				t.Errorf("%d buckets named Retried, want 2 (one per user)", n)
			}
		})

		other := v.privateBucket(t, trader(3), "Danube watchlist")
		pub := v.publicBucket(t)
		v.runAll(t, []call{
			{name: "buckets_update_no_entity", as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket,
				body: map[string]any{"name": "flat"}, want: 400},
			{as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket, body: raw(`{"entity": null}`), want: 400},
			{as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket, body: raw(`{"entity": "x"}`), want: 400},
			{as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket, body: raw(`{"entity": {"name": ""}}`), want: 400},
			{name: "buckets_update_invalid", as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket,
				body: map[string]any{"entity": map[string]any{"name": "", "instruments": []map[string]any{{"id": "nope"}}}}, want: 400},
			{as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket, body: raw(`{"entity": {"is_enabled": 1}}`), want: 400},
			{name: "buckets_update_other_firm", as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/" + other,
				body: map[string]any{"entity": map[string]any{"name": "mine"}}, want: 404},
			{name: "buckets_update_public", as: trader(0), method: "PUT", path: "/api/v1/participant/buckets/" + pub,
				body: map[string]any{"entity": map[string]any{"name": "mine"}}, want: 404},
			{as: admin(0), method: "PUT", path: "/api/v1/participant/buckets/not-an-id", body: map[string]any{"entity": map[string]any{"name": "x"}}, want: 404},
			{name: "buckets_update_viewer", as: viewer(0), method: "PUT", path: "/api/v1/participant/buckets/" + bucket,
				body: map[string]any{"entity": map[string]any{"name": "x"}}, want: 403},
			{name: "buckets_update_public_operator", as: operator, method: "PUT", path: "/api/v1/participant/buckets/" + pub,
				body: map[string]any{"entity": map[string]any{"name": "Euro area sovereigns (core)"}}, want: 200},
			{as: admin(0), method: "DELETE", path: "/api/v1/participant/buckets/" + other, want: 404},
			{as: admin(0), method: "DELETE", path: "/api/v1/participant/buckets/" + pub, want: 404},
			{as: viewer(0), method: "DELETE", path: "/api/v1/participant/buckets/" + bucket, want: 403},
			{name: "buckets_delete", as: trader(0), method: "DELETE", path: "/api/v1/participant/buckets/" + bucket, want: 200},
			{as: trader(0), method: "GET", path: "/api/v1/participant/buckets/" + bucket, want: 404},
			{name: "buckets_delete_again", as: trader(0), method: "DELETE", path: "/api/v1/participant/buckets/" + bucket, want: 404},
			{as: operator, method: "DELETE", path: "/api/v1/participant/buckets/" + other, want: 200},
		})
	})
}

func toObjects(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
