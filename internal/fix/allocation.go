package fix

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quagmt/udecimal"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is allocations over FIX: an AllocationInstruction (J) splits
// the firm's side of a trade to its accounts, as POST
// /api/v1/trades/{id}/allocations does, and is answered with an
// AllocationInstructionAck (P).

const (
	tagAllocID        quickfix.Tag = 70
	tagAllocTransType quickfix.Tag = 71
	tagQuantity       quickfix.Tag = 53
	tagNoExecs        quickfix.Tag = 124
	tagTradeID        quickfix.Tag = 1003
	tagNoAllocs       quickfix.Tag = 78
	tagAllocAccount   quickfix.Tag = 79
	tagAllocQty       quickfix.Tag = 80
	tagAllocStatus    quickfix.Tag = 87
	tagAllocRejCode   quickfix.Tag = 88
)

// execAllocs is the NoExecs group of an AllocationInstruction: the trade
// it allocates, by 1003 TradeID.
func execAllocs() *quickfix.RepeatingGroup {
	return quickfix.NewRepeatingGroup(tagNoExecs, quickfix.GroupTemplate{quickfix.GroupElement(32), quickfix.GroupElement(17),
		quickfix.GroupElement(527), quickfix.GroupElement(31), quickfix.GroupElement(669), quickfix.GroupElement(29),
		quickfix.GroupElement(tagTradeID), quickfix.GroupElement(1041)})
}

// allocs is the NoAllocs group: an account (79) and its nominal (80) each.
func allocs() *quickfix.RepeatingGroup {
	return quickfix.NewRepeatingGroup(tagNoAllocs, quickfix.GroupTemplate{quickfix.GroupElement(tagAllocAccount),
		quickfix.GroupElement(661), quickfix.GroupElement(573), quickfix.GroupElement(366), quickfix.GroupElement(tagAllocQty),
		quickfix.GroupElement(467), quickfix.GroupElement(81)})
}

// tradeIDOf reads a trade's id from 1003 TradeID: the trade's id, or its
// 880 TrdMatchID as the fills carry it ("BV" and the id's 32 hex digits).
func tradeIDOf(s string) string {
	h := strings.ToLower(strings.TrimPrefix(s, "BV"))
	if len(s) == 34 && strings.HasPrefix(s, "BV") && len(h) == 32 {
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	return s
}

// allocationInstruction is a FIX client's AllocationInstruction J: 71
// AllocTransType 0 (new), one 124 NoExecs entry naming the trade by 1003
// TradeID, 54 Side and 53 Quantity of the firm's side, and 78 NoAllocs with
// 79 AllocAccount (an account id of the firm) and 80 AllocQty each. It is
// answered with P: 87 AllocStatus 0 (accepted) or 1 (block level reject,
// with 88 AllocRejCode and 58 Text naming why).
func (s *session) allocationInstruction(ctx context.Context, msg *quickfix.Message) quickfix.MessageRejectError {
	allocID, _ := msg.Body.GetString(tagAllocID)
	tradeID, parts, err := s.allocationOf(ctx, msg)
	if err == nil {
		_, err = s.g.svc.AllocateTrade(ctx, s.p, tradeID, parts)
	}
	m := newMessage("P")
	m.Body.SetString(tagAllocID, allocID)
	if d, e := msg.Body.GetString(tagTradeDate); e == nil {
		m.Body.SetString(tagTradeDate, d)
	}
	if err != nil {
		_, text := rejectOf(err)
		m.Body.SetString(tagAllocStatus, "1")
		m.Body.SetString(tagAllocRejCode, allocRejCode(err))
		m.Body.SetString(tagText, text)
	} else {
		m.Body.SetString(tagAllocStatus, "0")
	}
	s.g.send(s.id, m)
	return nil
}

// allocationOf reads an AllocationInstruction's trade and parts, and checks
// its side and quantity against the trade.
func (s *session) allocationOf(ctx context.Context, msg *quickfix.Message) (string, []trading.AllocationInput, error) {
	var v venue.Validator
	if t, _ := msg.Body.GetString(tagAllocTransType); t != "0" {
		v.Addf("71 AllocTransType", "must be 0 (new): an allocation is made once and not replaced")
	}
	tradeID := ""
	execs := execAllocs()
	if err := msg.Body.GetGroup(execs); err != nil || execs.Len() != 1 {
		v.Addf("124 NoExecs", "must hold one entry naming the trade by 1003 TradeID")
	} else if id, _ := execs.Get(0).GetString(tagTradeID); id == "" {
		v.Addf("1003 TradeID", "is required: the trade's id or its 880 TrdMatchID")
	} else {
		tradeID = tradeIDOf(id)
	}
	group := allocs()
	var parts []trading.AllocationInput
	if err := msg.Body.GetGroup(group); err != nil || group.Len() == 0 {
		v.Addf("78 NoAllocs", "must hold the accounts, each with 79 AllocAccount and 80 AllocQty")
	} else {
		for i := range group.Len() {
			g := group.Get(i)
			acc, _ := g.GetString(tagAllocAccount)
			qs, _ := g.GetString(tagAllocQty)
			q, err := udecimal.Parse(qs)
			if acc == "" || err != nil {
				v.Addf(fmt.Sprintf("78 NoAllocs entry %d", i+1), "needs 79 AllocAccount and 80 AllocQty, a decimal nominal")
				continue
			}
			parts = append(parts, trading.AllocationInput{AccountID: &acc, Quantity: &q})
		}
	}
	if err := v.Err(); err != nil {
		return "", nil, err
	}
	tr, err := s.g.svc.Trade(ctx, s.p, tradeID)
	if err != nil {
		return "", nil, err
	}
	side := "1"
	if tr.AskOrder.ParticipantID == s.p.ParticipantID {
		side = "2"
	}
	if got, _ := msg.Body.GetString(tagSide); got != side {
		v.Addf("54 Side", "must be the firm's side of the trade, %s", side)
	}
	if qs, _ := msg.Body.GetString(tagQuantity); qs != "" {
		if q, err := udecimal.Parse(qs); err != nil || !q.Equal(tr.Quantity) {
			v.Addf("53 Quantity", "must be the trade's quantity %s", tr.Quantity)
		}
	}
	return tradeID, parts, v.Err()
}

// allocRejCode is 88 AllocRejCode for an error: 0 unknown account, 1
// incorrect quantity, 7 other.
func allocRejCode(err error) string {
	var e *venue.Error
	if errors.As(err, &e) {
		for _, d := range e.Details {
			switch {
			case strings.HasSuffix(d.Field, ".account_id"):
				return "0"
			case strings.HasSuffix(d.Field, ".quantity"), d.Field == "allocations", d.Field == "53 Quantity":
				return "1"
			}
		}
	}
	return "7"
}
