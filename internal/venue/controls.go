package venue

import "time"

// Halt is an instrument's trading halt on one market.
type Halt struct {
	MarketID, InstrumentID string
	Halted                 bool
	Reason                 string
	UpdatedAt              time.Time
}

// KillSwitchResult is a kill switch's state and, after turning it on, how
// many open records it cancelled.
type KillSwitchResult struct {
	ParticipantID string
	Enabled       bool
	Cancelled     int
	UpdatedAt     time.Time
}
