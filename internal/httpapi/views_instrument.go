package httpapi

import (
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// instrumentCommonJSON holds the instrument fields that are the same in
// lists and in single retrieval.
type instrumentCommonJSON struct {
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
	InstrumentLimits limitsJSON `json:"instrument_limits"`
	CreatedAt        string     `json:"createdAt"`
	UpdatedAt        string     `json:"updatedAt"`
}

// instrumentJSON is an instrument in lists and buckets: min_piece,
// min_increment and par_amount are strings.
type instrumentJSON struct {
	instrumentCommonJSON
	MinPiece     string `json:"min_piece"`
	MinIncrement string `json:"min_increment"`
	ParAmount    string `json:"par_amount"`
}

// instrumentDetailJSON is the single retrieval: the three amounts are
// numbers, and static_data, markets and buckets are added.
type instrumentDetailJSON struct {
	instrumentCommonJSON
	MinPiece     num              `json:"min_piece"`
	MinIncrement num              `json:"min_increment"`
	ParAmount    num              `json:"par_amount"`
	StaticData   venue.StaticData `json:"static_data"`
	Markets      []marketJSON     `json:"markets"`
	Buckets      []bucketHeadJSON `json:"buckets"`
}

type limitsJSON struct {
	Ask []wire.LimitEntry `json:"ask"`
	Bid []wire.LimitEntry `json:"bid"`
}

func instrumentCommon(v trading.InstrumentView) instrumentCommonJSON {
	in := v.Instrument
	return instrumentCommonJSON{ID: in.ID, Precision: in.Precision, SubunitsConfig: 2, Enabled: in.Enabled,
		Visibility: true, InstrumentTerms: in.Terms,
		InstrumentLimits: limitsJSON{Ask: mapSlice(v.Limits.Ask, wire.LimitEntryOf), Bid: mapSlice(v.Limits.Bid, wire.LimitEntryOf)},
		CreatedAt:        ts(in.CreatedAt), UpdatedAt: ts(in.UpdatedAt)}
}

func instrumentListView(v trading.InstrumentView) instrumentJSON {
	return instrumentJSON{instrumentCommonJSON: instrumentCommon(v), MinPiece: str(v.MinPiece),
		MinIncrement: str(v.MinIncrement), ParAmount: str(v.ParAmount)}
}

func instrumentDetailView(d trading.InstrumentDetail) instrumentDetailJSON {
	return instrumentDetailJSON{instrumentCommonJSON: instrumentCommon(d.InstrumentView), MinPiece: numOf(d.MinPiece),
		MinIncrement: numOf(d.MinIncrement), ParAmount: numOf(d.ParAmount), StaticData: d.Static,
		Markets: mapSlice(d.Markets, marketView), Buckets: mapSlice(d.Buckets, bucketHead)}
}
