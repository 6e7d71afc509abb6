package wire

import (
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// text writes an exact decimal as a JSON string.
func text(d udecimal.Decimal) string { return d.String() }

// InstrumentFields holds the instrument fields that are the same in
// lists and in single retrieval.
type InstrumentFields struct {
	ID                      string  `json:"id"`
	IconURL                 *string `json:"icon_url"`
	ContractConfig          *string `json:"contract_config"`
	FeeLimitConfig          *string `json:"fee_limit_config"`
	MinimalCollectionAmount *string `json:"minimal_collection_amount"`
	MaxWithdrawalAmount     *string `json:"max_withdrawal_amount"`
	Balance                 *string `json:"balance"`
	BuyerPrimaryFee         *string `json:"buyer_primary_fee"`
	BuyerSecondaryFee       *string `json:"buyer_secondary_fee"`
	SellerPrimaryFee        *string `json:"seller_primary_fee"`
	SellerSecondaryFee      *string `json:"seller_secondary_fee"`
	ProductPageURL          *string `json:"product_page_url"`
	RepaymentEnabled        *string `json:"repayment_enabled"`
	TermsURL                *string `json:"terms_url"`
	IssuerParticipantID     *string `json:"issuer_participant_id"`
	Precision               int     `json:"precision"`
	SubunitsConfig          int     `json:"subunits_config"`
	Enabled                 bool    `json:"enabled"`
	Visibility              bool    `json:"visibility"`
	TransactionFeesApproved bool    `json:"transaction_fees_approved"`
	WithdrawFee             int     `json:"withdraw_fee"`
	MinWithdrawFee          int     `json:"min_withdraw_fee"`
	MaxWithdrawFee          int     `json:"max_withdraw_fee"`
	venue.InstrumentTerms
	InstrumentLimits Limits `json:"instrument_limits"`
	CreatedAt        string `json:"createdAt"`
	UpdatedAt        string `json:"updatedAt"`
}

// Instrument is an instrument in lists and buckets: min_piece,
// min_increment and par_amount are strings.
type Instrument struct {
	InstrumentFields
	MinPiece     string `json:"min_piece"`
	MinIncrement string `json:"min_increment"`
	ParAmount    string `json:"par_amount"`
}

// InstrumentDetail is the single retrieval: the three amounts are
// numbers, and static_data, markets and buckets are added.
type InstrumentDetail struct {
	InstrumentFields
	MinPiece     Num              `json:"min_piece"`
	MinIncrement Num              `json:"min_increment"`
	ParAmount    Num              `json:"par_amount"`
	StaticData   venue.StaticData `json:"static_data"`
	Markets      []Market         `json:"markets"`
	Buckets      []BucketHead     `json:"buckets"`
}

// Limits is an instrument's instrument_limits: its resting offers per side.
type Limits struct {
	Ask []LimitEntry `json:"ask"`
	Bid []LimitEntry `json:"bid"`
}

func instrumentFieldsOf(v trading.InstrumentView) InstrumentFields {
	in := v.Instrument
	return InstrumentFields{ID: in.ID, Precision: in.Precision, SubunitsConfig: 2, Enabled: in.Enabled,
		Visibility: true, InstrumentTerms: in.Terms,
		InstrumentLimits: Limits{Ask: mapSlice(v.Limits.Ask, LimitEntryOf), Bid: mapSlice(v.Limits.Bid, LimitEntryOf)},
		CreatedAt:        Time(in.CreatedAt), UpdatedAt: Time(in.UpdatedAt)}
}

// InstrumentOf renders an instrument as lists and buckets show it.
func InstrumentOf(v trading.InstrumentView) Instrument {
	return Instrument{InstrumentFields: instrumentFieldsOf(v), MinPiece: text(v.MinPiece),
		MinIncrement: text(v.MinIncrement), ParAmount: text(v.ParAmount)}
}

// InstrumentDetailOf renders an instrument's single retrieval.
func InstrumentDetailOf(d trading.InstrumentDetail) InstrumentDetail {
	return InstrumentDetail{InstrumentFields: instrumentFieldsOf(d.InstrumentView), MinPiece: NumOf(d.MinPiece),
		MinIncrement: NumOf(d.MinIncrement), ParAmount: NumOf(d.ParAmount), StaticData: d.Static,
		Markets: mapSlice(d.Markets, MarketOf), Buckets: mapSlice(d.Buckets, BucketHeadOf)}
}
