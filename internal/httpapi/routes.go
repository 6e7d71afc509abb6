package httpapi

import (
	"net/http"

	"github.com/bondvenue/bondvenue/internal/apidoc"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/webui"
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes lists every route of the venue. Middleware: Handler wraps all of
// them in observe (request id, log, metrics) → recoverer; s.authed adds
// bearer authentication and the per-credential rate limit; s.public does
// neither; s.reasoned marks a write the audit trail records, binding the
// reason it gives. Request bodies are capped at 1 MiB in decode. Order
// entry (entry) is a route whose gateway-to-gateway latency observe
// records, for the clock's tolerance (internal/clock).
func (s *Server) routes() {
	m := s.mux
	const v1 = "/api/v1"
	entry := func(pattern string, h http.Handler) {
		s.entries[pattern] = true
		m.Handle(pattern, h)
	}

	// Operations.
	m.Handle("GET /healthz", s.public(s.healthz))
	m.Handle("GET /readyz", s.public(s.readyz))
	m.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	docs := apidoc.Handler()
	m.Handle("GET "+v1+"/openapi.json", docs)
	m.Handle("GET "+v1+"/asyncapi.json", docs)
	m.Handle("GET "+v1+"/fix/dictionary", s.public(s.fixDictionary))
	m.Handle("GET /docs", docs)
	m.Handle("GET /docs/", docs)

	// The web app (internal/webui): static files of a client of this API
	// and the streams; a file it lacks gets the API's 404.
	app := webui.NewHandler(s.public(s.noFile))
	m.Handle("GET /{$}", app)
	m.Handle("GET /assets/", app)
	m.Handle("GET /favicon.svg", app)

	// Authentication.
	m.Handle("POST "+v1+"/auth/token", s.public(s.token))
	m.Handle("POST "+v1+"/auth/renew", s.public(s.renewToken))
	m.Handle("GET "+v1+"/auth/me", s.authed(s.me))

	// Reference data.
	m.Handle("GET "+v1+"/participants", s.authed(s.listParticipants))
	m.Handle("GET "+v1+"/participants/{participantId}", s.authed(onPathID(s, "participantId", (*trading.Service).Participant, wire.ParticipantOf)))
	m.Handle("GET "+v1+"/accounts", s.authed(s.listAccounts))
	m.Handle("GET "+v1+"/accounts/{accountId}", s.authed(onPathID(s, "accountId", (*trading.Service).Account, wire.AccountRecordOf)))
	m.Handle("GET "+v1+"/users", s.authed(s.listUsers))
	m.Handle("GET "+v1+"/users/{userId}", s.authed(onPathID(s, "userId", (*trading.Service).User, wire.UserRecordOf)))
	m.Handle("GET "+v1+"/markets", s.authed(s.listMarkets))
	m.Handle("GET "+v1+"/markets/{marketId}", s.authed(s.getMarket))
	m.Handle("GET "+v1+"/instruments", s.authed(s.listInstruments))
	m.Handle("GET "+v1+"/instruments/{instrument_id}", s.authed(s.getInstrument))
	m.Handle("GET "+v1+"/news", s.authed(s.listNews))
	m.Handle("GET "+v1+"/participant/risk-limits", s.authed(s.listRiskLimits))
	m.Handle("GET "+v1+"/instruments/{instrument_id}/price-collar", s.authed(s.priceCollar))
	m.Handle("GET "+v1+"/participant/kill-switch", s.authed(s.getKillSwitch))
	m.Handle("PUT "+v1+"/participant/kill-switch", s.authed(s.reasoned(s.setKillSwitch)))

	// Bond calculator.
	m.Handle("POST "+v1+"/analytics/day-count", s.authed(s.dayCount))
	m.Handle("POST "+v1+"/analytics/accrued-interest", s.authed(s.accruedInterest))
	m.Handle("POST "+v1+"/analytics/price", s.authed(s.price))
	m.Handle("POST "+v1+"/analytics/yield", s.authed(s.yield))
	m.Handle("GET "+v1+"/calendars/{calendar}/settlement-date", s.authed(s.settlementDate))
	m.Handle("GET "+v1+"/markets/{marketId}/settlement-date", s.authed(s.marketSettlementDate))
	m.Handle("GET "+v1+"/calendars/{calendar}/holidays", s.authed(s.holidays))
	m.Handle("GET "+v1+"/instruments/{instrument_id}/analytics", s.authed(s.instrumentAnalytics))
	m.Handle("GET "+v1+"/instruments/{instrument_id}/ohlc", s.authed(s.instrumentOHLC))
	m.Handle("GET "+v1+"/tape", s.authed(s.tape))
	m.Handle("GET "+v1+"/last-trades", s.authed(s.lastTrades))

	// Buckets.
	m.Handle("POST "+v1+"/participant/buckets", s.authed(s.createBucket))
	m.Handle("GET "+v1+"/participant/buckets", s.authed(s.listBuckets))
	m.Handle("GET "+v1+"/participant/buckets/{bucketId}", s.authed(onPathID(s, "bucketId", (*trading.Service).Bucket, wire.BucketOf)))
	m.Handle("PUT "+v1+"/participant/buckets/{bucketId}", s.authed(s.reasoned(s.updateBucket)))
	m.Handle("DELETE "+v1+"/participant/buckets/{bucketId}", s.authed(s.reasoned(onPathID(s, "bucketId", (*trading.Service).DeleteBucket, wire.BucketOf))))

	// Offers, quotes, RFQs and trades.
	entry("POST "+v1+"/participant/offers", s.queued(s.createOffer))
	m.Handle("GET "+v1+"/participant/offers", s.authed(s.listOffers))
	m.Handle("GET "+v1+"/participant/offers/{offerId}", s.authed(onPathID(s, "offerId", (*trading.Service).Offer, wire.OfferNestedOf)))
	entry("PUT "+v1+"/participant/offers/{offerId}", s.queued(s.updateOffer))
	entry("DELETE "+v1+"/participant/offers/{offerId}", s.authed(onPathID(s, "offerId", (*trading.Service).DeleteOffer, wire.OfferNestedOf)))
	entry("PUT "+v1+"/participant/offers/{offerId}/accept", s.queued(s.acceptQuote))
	entry("POST "+v1+"/participant/rfq", s.queued(s.createRFQ))
	m.Handle("GET "+v1+"/participant/rfq", s.authed(s.listRFQs))
	m.Handle("GET "+v1+"/participant/rfq/{rfqId}", s.authed(onPathID(s, "rfqId", (*trading.Service).RFQ, wire.RFQNestedOf)))
	m.Handle("GET "+v1+"/participant/rfq/{rfqId}/execution-record", s.authed(s.executionRecord))
	m.Handle("GET "+v1+"/participant/rfq/execution-records", s.authed(s.executionRecords))
	entry("PUT "+v1+"/participant/rfq/{rfqId}", s.queued(s.updateRFQ))
	entry("DELETE "+v1+"/participant/rfq/{rfqId}", s.authed(onPathID(s, "rfqId", (*trading.Service).CancelRFQ, wire.RFQNestedOf)))
	entry("PUT "+v1+"/participant/rfq/{rfqId}/reject", s.authed(onPathID(s, "rfqId", (*trading.Service).DeclineRFQ, wire.RFQNestedOf)))
	entry("POST "+v1+"/participant/portfolio-rfq", s.queued(s.createPortfolio))
	m.Handle("GET "+v1+"/participant/portfolio-rfq", s.authed(s.listPortfolios))
	m.Handle("GET "+v1+"/participant/portfolio-rfq/{portfolioId}", s.authed(onPathID(s, "portfolioId", (*trading.Service).PortfolioRFQ, portfolioView)))
	entry("DELETE "+v1+"/participant/portfolio-rfq/{portfolioId}", s.authed(onPathID(s, "portfolioId", (*trading.Service).CancelPortfolio, portfolioView)))
	entry("PUT "+v1+"/participant/portfolio-rfq/{portfolioId}/reject", s.authed(onPathID(s, "portfolioId", (*trading.Service).DeclinePortfolio, portfolioView)))
	entry("POST "+v1+"/participant/portfolio-rfq/{portfolioId}/quotes", s.queued(s.quotePortfolio))
	entry("PUT "+v1+"/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/accept", s.queued(s.acceptPortfolioQuote))
	entry("PUT "+v1+"/participant/portfolio-rfq/{portfolioId}/quotes/{quoteId}/reject", s.authed(onPortfolioQuote(s, (*trading.Service).PassPortfolioQuote)))
	m.Handle("GET "+v1+"/trades", s.authed(s.listTrades))
	m.Handle("GET "+v1+"/trades/{tradeId}", s.authed(onPathID(s, "tradeId", (*trading.Service).Trade, wire.TradeNestedOf)))
	m.Handle("POST "+v1+"/trades/{tradeId}/allocations", s.authed(s.allocateTrade))
	m.Handle("GET "+v1+"/allocations", s.authed(s.listAllocations))
	m.Handle("GET "+v1+"/trades/{tradeId}/allocations", s.authed(onPathID(s, "tradeId", (*trading.Service).TradeAllocation, wire.AllocationOf)))
	m.Handle("GET "+v1+"/events", s.authed(s.listEvents))
	m.Handle("GET "+v1+"/participant/positions", s.authed(s.listPositions))

	// Indicative prices.
	m.Handle("GET "+v1+"/participant/indicative-price", s.authed(s.listIndicativePrices))
	m.Handle("POST "+v1+"/participant/indicative-price", s.authed(s.createIndicativePrice))
	m.Handle("PUT "+v1+"/participant/indicative-price/{indicativePriceId}", s.authed(s.updateIndicativePrice))
	m.Handle("DELETE "+v1+"/participant/indicative-price/{indicativePriceId}", s.authed(onPathID(s, "indicativePriceId", (*trading.Service).DeleteIndicativePrice, wire.IndicativePriceOf)))

	// Settlement providers.
	m.Handle("GET "+v1+"/settlement-providers", s.authed(s.listProviders))
	m.Handle("PUT "+v1+"/settlement-providers/{id}/toggle", s.authed(s.reasoned(onPathID(s, "id", (*trading.Service).ToggleSettlementProvider, wire.ProviderOf))))
	m.Handle("PUT "+v1+"/settlement-providers/{id}/account/{accountId}/default", s.authed(s.reasoned(s.accountDefaultProvider)))
	m.Handle("PUT "+v1+"/settlement-providers/{id}/participant/{participantId}/default", s.authed(s.reasoned(s.participantDefaultProvider)))

	// Venue operator.
	m.Handle("POST "+v1+"/admin/participants", s.authed(s.reasoned(s.adminCreateParticipant)))
	m.Handle("PUT "+v1+"/admin/participants/{participantId}", s.authed(s.reasoned(s.adminUpdateParticipant)))
	m.Handle("POST "+v1+"/admin/accounts", s.authed(s.reasoned(s.adminCreateAccount)))
	m.Handle("POST "+v1+"/admin/users", s.authed(s.reasoned(s.adminCreateUser)))
	m.Handle("PUT "+v1+"/admin/users/{userId}", s.authed(s.reasoned(s.adminUpdateUser)))
	m.Handle("POST "+v1+"/admin/users/{userId}/credentials", s.authed(s.reasoned(s.adminIssueCredential)))
	m.Handle("GET "+v1+"/admin/users/{userId}/credentials", s.authed(s.adminListCredentials))
	m.Handle("DELETE "+v1+"/admin/credentials/{clientId}", s.authed(s.reasoned(onPathID(s, "clientId", (*trading.Service).RevokeCredential, wire.CredentialOf))))
	m.Handle("PUT "+v1+"/admin/counterparties", s.authed(s.reasoned(s.adminSetCounterparty)))
	m.Handle("PUT "+v1+"/admin/participants/{participantId}/risk-limits/{name}", s.authed(s.reasoned(s.adminSetRiskLimit)))
	m.Handle("POST "+v1+"/admin/settlement-providers", s.authed(s.reasoned(s.adminCreateProvider)))
	m.Handle("GET "+v1+"/admin/settlement-links", s.authed(s.getSettlementLinks))
	m.Handle("PUT "+v1+"/admin/settlement-links", s.authed(s.reasoned(s.setSettlementLinks)))
	m.Handle("POST "+v1+"/admin/markets", s.authed(s.reasoned(s.adminCreateMarket)))
	m.Handle("PUT "+v1+"/admin/markets/{marketId}", s.authed(s.reasoned(s.adminUpdateMarket)))
	m.Handle("PUT "+v1+"/admin/markets/{marketId}/instruments/{instrument_id}/halt", s.authed(s.reasoned(s.adminSetHalt)))
	m.Handle("GET "+v1+"/admin/markets/{marketId}/instruments/{instrument_id}/book", s.authed(s.replayBook))
	m.Handle("GET "+v1+"/admin/order-records", s.authed(s.exportOrderRecords))
	m.Handle("GET "+v1+"/admin/participants/{participantId}/kill-switch", s.authed(s.getKillSwitch))
	m.Handle("PUT "+v1+"/admin/participants/{participantId}/kill-switch", s.authed(s.reasoned(s.setKillSwitch)))
	m.Handle("POST "+v1+"/admin/instruments", s.authed(s.reasoned(s.adminCreateInstrument)))
	m.Handle("PUT "+v1+"/admin/instruments/{instrument_id}", s.authed(s.reasoned(s.adminUpdateInstrument)))
	m.Handle("POST "+v1+"/admin/buckets", s.authed(s.reasoned(s.adminCreateBucket)))
	m.Handle("POST "+v1+"/admin/news", s.authed(s.reasoned(s.adminCreateNews)))
	m.Handle("GET "+v1+"/admin/audit-log", s.authed(s.auditLog))

	// Between instances: the trading commands a standby's FIX sessions
	// pass to the leader, signed (internal/cluster); not part of the API.
	m.Handle("POST /internal/v1/commands", s.public(s.runCommand))

	// Everything else: 404, or 405 when the path exists for another method.
	m.Handle("/", s.public(s.unmatched))
}
