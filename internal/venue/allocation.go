package venue

import (
	"fmt"
	"time"

	"github.com/quagmt/udecimal"
)

// Allocation is one part of a trade's side given to one of its firm's
// accounts: its nominal, and its share of the side's accrued interest and
// settlement amount to the cent.
type Allocation struct {
	ID              string
	AccountID       string
	Quantity        udecimal.Decimal
	AccruedInterest udecimal.Decimal
	// SettlementAmount is the part's cash (the trade's "price" field).
	SettlementAmount udecimal.Decimal
}

// AllocationSet is how one side of a trade was split to its firm's
// accounts. Late is set when it was made after the allocation deadline
// (AllocationDeadline).
type AllocationSet struct {
	TradeID       string
	ParticipantID string
	UserID        string
	Direction     string // the side's: ask (sold) or bid (bought)
	// The trade's, for readers of the event.
	MarketID, InstrumentID string
	Allocations            []Allocation
	Late                   bool
	CreatedAt              time.Time
}

// MaxAllocations bounds the parts of one side's allocation.
const MaxAllocations = 100

// AllocationPart is a requested part: an account and its nominal.
type AllocationPart struct {
	AccountID string
	Quantity  udecimal.Decimal
}

// Allocate splits a trade's side of quantity total with accrued interest
// accrued and settlement amount amount into parts: each part's accrued and
// amount are its pro rata share rounded to the cent (half away from zero),
// and the residual cents of each go to the largest part (the first listed
// of equal ones), so the parts sum to the trade's figures exactly. The
// parts' quantities must be positive and sum to total (checked by the
// caller, which names the field).
func Allocate(total, accrued, amount udecimal.Decimal, parts []AllocationPart) ([]Allocation, error) {
	if !total.IsPos() || len(parts) == 0 {
		return nil, fmt.Errorf("allocate %s in %d parts", total, len(parts))
	}
	out := make([]Allocation, len(parts))
	largest := 0
	sumAcc, sumAmt := udecimal.Zero, udecimal.Zero
	for i, p := range parts {
		acc, err := share(accrued, p.Quantity, total)
		if err != nil {
			return nil, err
		}
		amt, err := share(amount, p.Quantity, total)
		if err != nil {
			return nil, err
		}
		out[i] = Allocation{AccountID: p.AccountID, Quantity: p.Quantity, AccruedInterest: acc, SettlementAmount: amt}
		sumAcc, sumAmt = sumAcc.Add(acc), sumAmt.Add(amt)
		if p.Quantity.GreaterThan(parts[largest].Quantity) {
			largest = i
		}
	}
	out[largest].AccruedInterest = out[largest].AccruedInterest.Add(accrued.Sub(sumAcc))
	out[largest].SettlementAmount = out[largest].SettlementAmount.Add(amount.Sub(sumAmt))
	return out, nil
}

// share is figure × part / total to the cent.
func share(figure, part, total udecimal.Decimal) (udecimal.Decimal, error) {
	q, err := figure.Mul(part).Div(total)
	if err != nil {
		return udecimal.Zero, err
	}
	return q.RoundHAZ(2), nil
}

// AllocationDeadline is when allocations of a trade made at tradeTime on
// a market in time zone loc are due: 23:00 on its trade date there. One
// made after it is accepted and marked late.
func AllocationDeadline(tradeTime time.Time, loc *time.Location) time.Time {
	local := tradeTime.In(loc)
	y, m, d := local.Date()
	return time.Date(y, m, d, 23, 0, 0, 0, loc)
}

// CentralEurope is Central European time (CET, CEST in summer), of the
// post-trade deadlines.
var CentralEurope = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Brussels")
	if err != nil {
		panic(err) // the binary embeds the zone database (time/tzdata)
	}
	return loc
}()
