package wire

import (
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// IndicativePrice is the indicative price record. Prices and quantities are
// JSON numbers, yields decimal text; a side without a price has null price,
// quantity and yield. participant_id, account_id and user_id are null where
// the reader may not see them (an empty string in the domain value).
type IndicativePrice struct {
	ID             string  `json:"id"`
	ParticipantID  *string `json:"participant_id"`
	AccountID      *string `json:"account_id"`
	UserID         *string `json:"user_id"`
	InstrumentID   string  `json:"instrument_id"`
	BidPrice       *Num    `json:"bid_price"`
	AskPrice       *Num    `json:"ask_price"`
	BidQuantity    *Num    `json:"bid_quantity"`
	AskQuantity    *Num    `json:"ask_quantity"`
	BidYield       *string `json:"bid_yield"`
	AskYield       *string `json:"ask_yield"`
	SettlementDate string  `json:"settlement_date"`
	ValidUntil     *string `json:"valid_until"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// IndicativePriceOf renders ip.
func IndicativePriceOf(ip venue.IndicativePrice) IndicativePrice {
	return IndicativePrice{ID: ip.ID, ParticipantID: Nullable(ip.ParticipantID), AccountID: Nullable(ip.AccountID),
		UserID: Nullable(ip.UserID), InstrumentID: ip.InstrumentID, BidPrice: numPtr(ip.BidPrice),
		AskPrice: numPtr(ip.AskPrice), BidQuantity: numPtr(ip.BidQuantity), AskQuantity: numPtr(ip.AskQuantity),
		BidYield: textPtr(ip.BidYield), AskYield: textPtr(ip.AskYield), SettlementDate: ip.SettlementDate.String(),
		ValidUntil: TimePtr(ip.ValidUntil), CreatedAt: Time(ip.CreatedAt), UpdatedAt: Time(ip.UpdatedAt)}
}

func numPtr(d *udecimal.Decimal) *Num {
	if d == nil {
		return nil
	}
	n := NumOf(*d)
	return &n
}

func textPtr(d *udecimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}
