package feed

// LogRecords are the event log's stored record types by name, for the test
// that ties them to wire's shapes (the test is in package feed_test, beside wire, and reaches them
// through here).
var LogRecords = map[string]any{
	"offer":      logOffer{},
	"order":      logOrder{},
	"trade":      logTrade{},
	"indicative": logIndicative{},
	"news":       logNews{},
}
