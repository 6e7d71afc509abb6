// Package spec is the venue's FIX dictionary: the FIX 5.0 SP2 application
// messages the gateway supports (ApplVerID 9) and the FIXT.1.1 session
// layer they travel on, in the QuickFIX XML format quickfixgo validates and
// parses messages with.
//
// FIXT11.xml is quickfixgo's standard FIXT.1.1 dictionary, unchanged.
// FIX50SP2.xml is cut from quickfixgo's standard FIX 5.0 SP2 dictionary by
// ./gen (run with go generate ./internal/fix/spec; see specgen for the
// lists): it keeps the 30 messages the venue supports with their full
// standard definitions and the components and fields they use, so that any
// other application message is unknown to the engine, and it adds what the
// venue's clients send that the SP2 base lacks:
//
//   - 36010 ReportingPartyLEI and 36011 CounterpartyLEI, the venue's own
//     tags for parties named by LEI (as in the FIX interface of the venue
//     the specification describes), optional on the RFQ messages (R, S, AG,
//     AJ, AI), ExecutionReport 8 and TradeCaptureReport AE; 36011 on a
//     QuoteRequest names the dealers asked.
//   - 131 QuoteReqID on QuoteResponse AJ, where later extension packs put it
//     (the rest of the RFQ flow already carries it).
//   - 66 ListID on QuoteRequest R: a portfolio (list) RFQ over its
//     entries.
//   - 1301 MarketID on NewOrderSingle D, OrderCancelReplaceRequest G,
//     QuoteRequest R (top level and in each 146 NoRelatedSym entry),
//     Quote S, MarketDataRequest V and ExecutionReport 8: the venue's
//     market of an order, request or quote.
//   - the values N (LEI) and P (short code) of 447 PartyIDSource, so that
//     Parties naming firms by LEI and clients or traders by short code pass
//     enum validation, and the value 122 (investment decision maker) of 452
//     PartyRole, so that an order can name who decided it.
//
// The generated files are committed; a test checks that they are what the
// generator makes. docs/fix-dictionary.md, made with them, is the
// dictionary's reference for client developers.
package spec

//go:generate go run ./gen

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// Transport is the FIXT.1.1 session dictionary (quickfixgo's
// TransportDataDictionary).
//
//go:embed FIXT11.xml
var Transport []byte

// Application is the venue's FIX 5.0 SP2 application dictionary
// (quickfixgo's AppDataDictionary).
//
//go:embed FIX50SP2.xml
var Application []byte

// WriteFiles writes both dictionaries into dir, creating it if needed, and
// returns their paths: quickfixgo loads dictionaries from files named in
// its settings (TransportDataDictionary, AppDataDictionary).
func WriteFiles(dir string) (transportPath, appPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("fix dictionaries: %w", err)
	}
	transportPath, appPath = filepath.Join(dir, "FIXT11.xml"), filepath.Join(dir, "FIX50SP2.xml")
	if err := os.WriteFile(transportPath, Transport, 0o644); err != nil {
		return "", "", fmt.Errorf("fix dictionaries: %w", err)
	}
	if err := os.WriteFile(appPath, Application, 0o644); err != nil {
		return "", "", fmt.Errorf("fix dictionaries: %w", err)
	}
	return transportPath, appPath, nil
}
