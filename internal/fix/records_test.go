package fix_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixraw"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// TestOrderRecordsOverFIX: orders entered, amended, cancelled and refused
// over a FIX session, and the one the venue cancels when the session
// drops with cancel-on-disconnect on, each write their order record with
// its code, on both engines.
func TestOrderRecordsOverFIX(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		db := testenv.Open(t, e)
		core, creds := testenv.Demo(t, db, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
		gw, err := fix.New(fix.Deps{Trading: core.Svc, Live: core.Live, Cluster: core.Cluster, Keys: core.Keys, Access: core.Access},
			fixstore.New(db), fix.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		if err := gw.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(gw.Stop)
		v := &venueEnv{core: core, svc: core.Svc, creds: creds, gw: gw}
		market, in := v.book(t)
		u, _ := v.trader(t, 0)
		if err := core.Svc.SetFIXCancelOnDisconnect(ctx, trading.System, u.ClientID, true); err != nil {
			t.Fatal(err)
		}
		c, err := fixraw.Dial(gw.Addr().String(), "RECORDS", "BONDVENUE")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Logon(u.ClientID, u.ClientSecret); err != nil {
			t.Fatal(err)
		}
		now := func() string { return time.Now().UTC().Format("20060102-15:04:05.000") }
		send := func(typ string, fields ...string) {
			t.Helper()
			if err := c.Send(typ, fields...); err != nil {
				t.Fatal(err)
			}
		}
		// await reads until an execution report of ExecType execType for clOrdID.
		await := func(execType, clOrdID string) {
			t.Helper()
			for {
				m, err := c.Next(timeLeft(t))
				if err != nil {
					t.Fatalf("waiting for 150=%s of %s: %v", execType, clOrdID, err)
				}
				if fixraw.Field(m, 35) == "8" && fixraw.Field(m, 150) == execType && fixraw.Field(m, 11) == clOrdID {
					return
				}
			}
		}
		order := func(cl, price string) {
			send("D", "11", cl, "1", creds.Participants[0].AccountIDs[0], "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
				"60", now(), "38", in.MinPiece.String(), "40", "2", "44", price, "59", "1")
		}
		order("R1", "80.01")
		await("0", "R1")
		send("G", "11", "R1b", "41", "R1", "1", creds.Participants[0].AccountIDs[0], "48", in.Terms.ISIN, "22", "4", "54", "1",
			"60", now(), "38", in.MinPiece.String(), "40", "2", "44", "80.02")
		await("5", "R1b")
		send("F", "11", "R1c", "41", "R1b", "54", "1", "60", now())
		await("4", "R1c")
		order("R2", "80.0123456789") // off the instrument's price precision
		await("8", "R2")
		// R3 names its client (short code 2: AGGR), its executing trader
		// and its capacity (agency): its records carry them.
		send("D", "11", "R3", "1", creds.Participants[0].AccountIDs[0], "48", in.Terms.ISIN, "22", "4", "1301", market, "54", "1",
			"60", now(), "38", in.MinPiece.String(), "40", "2", "44", "80.03", "59", "1",
			"453", "2", "448", "2", "447", "P", "452", "3", "448", "TRADER9", "447", "P", "452", "12", "528", "A")
		await("0", "R3")
		c.Close() // the session drops: its resting order is the venue's to cancel
		want := []string{records.New, records.ReplacedByMember, records.CancelledByMember, records.Rejected, records.New,
			records.CancelledByOperator}
		var got, parties []string
		testenv.Wait(t, "the order records of the FIX session", func() bool {
			got, parties = got[:0], parties[:0]
			err := db.OrderRecords(ctx, store.RecordFilter{}, func(r records.Stored) error {
				got = append(got, r.Value("event"))
				parties = append(parties, r.Value("client_id")+"/"+r.Value("execution_within_firm")+"/"+r.Value("trading_capacity"))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return len(got) >= len(want)
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("order records over FIX: %v, want %v", got, want)
		}
		if n := len(parties); n < 2 || parties[n-1] != "AGGR/TRADER9/AOTC" || parties[n-2] != parties[n-1] {
			t.Errorf("the parties of R3's records: %v, want AGGR/TRADER9/AOTC on its NEWO and its CAMO", parties)
		}
	})
}
