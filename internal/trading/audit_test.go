package trading_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/transparency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestRecordDeferralTable: the deferral table an instance starts with is
// recorded when the trail has none, or another; starting again with the
// same one records nothing.
func TestRecordDeferralTable(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := testenv.Service(t, e, testenv.Config{})
		ctx := context.Background()
		cli := trading.System
		cli.Channel = venue.ChannelCLI
		table := transparency.Default()
		other := *table
		other.Name = "a table of the operator's"
		for i, step := range []struct {
			table *transparency.Table
			wrote bool
		}{{table, true}, {table, false}, {&other, true}, {&other, false}} {
			wrote, err := v.Svc.RecordDeferralTable(ctx, cli, step.table)
			if err != nil || wrote != step.wrote {
				t.Fatalf("step %d: RecordDeferralTable = %v, %v; want %v", i, wrote, err, step.wrote)
			}
		}
		es, err := v.Svc.AuditLog(ctx, trading.System, trading.AuditFilter{EntityType: "deferral_table", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2 || es[0].Before != nil || string(es[1].Before) != string(es[0].After) ||
			!strings.Contains(string(es[1].After), other.Name) || es[1].Channel != "cli" || es[1].Action != "deferral_table.set" {
			t.Errorf("deferral table entries = %+v, want the first table and the change to the second, over the cli", es)
		}
	})
}
