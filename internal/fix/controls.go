package fix

import (
	"context"
	"strconv"
	"time"

	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// The pre-trade controls on FIX (docs/fix-rules-of-engagement.md): an
// OrderMassCancelRequest q cancels the firm's open orders, quotes and RFQs;
// an instrument's halt on a market, and its end, reach every session as
// SecurityStatus f; a market's change of trading phase reaches them as
// TradingSessionStatus h.

const (
	tagMassCancelRequestType  quickfix.Tag = 530
	tagMassCancelResponse     quickfix.Tag = 531
	tagMassCancelRejectReason quickfix.Tag = 532
	tagTotalAffectedOrders    quickfix.Tag = 533
	tagSecurityTradingStatus  quickfix.Tag = 326
	tagTradingSessionID       quickfix.Tag = 336
	tagTradSesStatus          quickfix.Tag = 340
)

// tradSesStatus is TradSesStatus (340) of each trading phase.
var tradSesStatus = map[string]string{
	string(venue.PhaseHalted):     "1",
	string(venue.PhaseContinuous): "2",
	string(venue.PhaseClosed):     "3",
	string(venue.PhasePreOpen):    "4",
}

// onPhase tells the session of a market's new trading phase: a
// TradingSessionStatus h whose TradingSessionID (336) and MarketID (1301)
// are the market's id, with TradSesStatus (340) 2 open, 3 closed or 4
// pre-open. Like market data it is not resent.
func (s *session) onPhase(e *feed.Event) {
	c := e.Control
	status, ok := tradSesStatus[c.Phase]
	if !ok {
		return
	}
	m := newMessage("h")
	m.Body.SetString(tagTradingSessionID, c.MarketID)
	m.Body.SetString(tagMarketID, c.MarketID)
	m.Body.SetString(tagTradSesStatus, status)
	m.Body.SetString(tagTransactTime, c.UpdatedAt.UTC().Format("20060102-15:04:05.000"))
	s.g.send(s.id, m)
}

// massCancelAll is 530/531 = 7, cancel all orders.
const massCancelAll = "7"

// massCancel is an OrderMassCancelRequest q. Only 530=7 (all of the
// firm's orders) is supported; the OrderMassCancelReport r says how many
// records were cancelled (533), or why none was (531=0, 532=99, 58). The
// cancellations themselves are reported as any cancel is.
func (s *session) massCancel(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	typ, _ := msg.Body.GetString(tagMassCancelRequestType)
	var n int
	var err error
	if typ != massCancelAll {
		err = venue.InvalidField("530 MassCancelRequestType", "must be 7 (cancel all orders)")
	} else {
		var id string
		if id, err = s.g.run(ctx, trading.Command{Op: trading.OpMassCancel, Principal: s.p}); err == nil {
			n, _ = strconv.Atoi(id)
		}
	}
	m := newMessage("r")
	if v, e := msg.Body.GetString(tagClOrdID); e == nil {
		m.Body.SetString(tagClOrdID, v)
	}
	m.Body.SetString(tagOrderID, "NONE")
	m.Body.SetString(tagMassCancelRequestType, typ)
	if err != nil {
		_, text := rejectOf(err)
		m.Body.SetString(tagMassCancelResponse, "0")
		m.Body.SetString(tagMassCancelRejectReason, "99")
		m.Body.SetString(tagText, text)
	} else {
		m.Body.SetString(tagMassCancelResponse, massCancelAll)
		m.Body.SetInt(tagTotalAffectedOrders, n)
	}
	m.Body.SetString(tagTransactTime, time.Now().UTC().Format("20060102-15:04:05.000"))
	s.g.send(s.id, m)
	return nil
}

// onHalt tells the session of an instrument halted (326=2) or ready to
// trade again (326=17) on a market. Like market data it is not resent.
func (s *session) onHalt(e *feed.Event) {
	c := e.Control
	m := newMessage("f")
	m.Body.SetString(tagSymbol, "[N/A]")
	m.Body.SetString(tagSecurityID, s.isin(c.InstrumentID))
	m.Body.SetString(tagSecurityIDSrc, "4")
	m.Body.SetString(tagMarketID, c.MarketID)
	status := "17"
	if c.Halted {
		status = "2"
	}
	m.Body.SetString(tagSecurityTradingStatus, status)
	if c.Reason != "" {
		m.Body.SetString(tagText, c.Reason)
	}
	m.Body.SetString(tagTransactTime, c.UpdatedAt.UTC().Format("20060102-15:04:05.000"))
	s.g.send(s.id, m)
}
