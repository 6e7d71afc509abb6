package httpapi_test

import "testing"

// testAnalyticsWire covers the bond calculator routes' wire formats; the
// figures themselves are bondmath's and trading's to test.
func testAnalyticsWire(t *testing.T, v *env) {
	ins := v.instruments(t)
	market := v.markets(t)[0].ID
	v.runAll(t, []call{
		{name: "markets_settlement_date", as: viewer(2), method: "GET", path: "/api/v1/markets/" + market + "/settlement-date?trade_date=2027-10-08", want: 200},
		{name: "markets_settlement_date_t1", as: viewer(2), method: "GET", path: "/api/v1/markets/" + market + "/settlement-date?trade_date=2027-10-11", want: 200},
		{name: "markets_settlement_date_invalid", as: viewer(2), method: "GET", path: "/api/v1/markets/" + market + "/settlement-date?trade_date=someday", want: 400},
		{as: viewer(2), method: "GET", path: "/api/v1/markets/" + missingID + "/settlement-date", want: 404},
		{name: "analytics_day_count", as: viewer(0), method: "POST", path: "/api/v1/analytics/day-count",
			body: map[string]any{"day_count": "act/act icma", "start": "2026-02-15", "end": "2026-08-15", "frequency": "Semi-annual", "unknown": 1}, want: 200},
		{name: "analytics_day_count_invalid", as: viewer(0), method: "POST", path: "/api/v1/analytics/day-count",
			body: map[string]any{"day_count": "ACT/999", "start": "15.02.2026"}, want: 400},
		{as: viewer(0), method: "POST", path: "/api/v1/analytics/day-count", body: raw(`{"day_count": 360}`), want: 400},
		{name: "analytics_accrued_interest", as: trader(1), method: "POST", path: "/api/v1/analytics/accrued-interest",
			body: bondTerms(map[string]any{"nominal": "1000000"}), want: 200},
		{name: "analytics_accrued_interest_invalid", as: trader(1), method: "POST", path: "/api/v1/analytics/accrued-interest",
			body: map[string]any{"coupon": "x", "frequency": "Weekly", "nominal": 0}, want: 400},
		{name: "analytics_price", as: admin(2), method: "POST", path: "/api/v1/analytics/price",
			body: bondTerms(map[string]any{"yield": 3.1, "decimals": 6}), want: 200},
		{as: admin(2), method: "POST", path: "/api/v1/analytics/price", body: bondTerms(nil), want: 400}, // no yield
		{name: "analytics_yield", as: operator, method: "POST", path: "/api/v1/analytics/yield",
			body: bondTerms(map[string]any{"clean_price": "99.5", "decimals": 6}), want: 200},
		{as: operator, method: "POST", path: "/api/v1/analytics/yield", body: bondTerms(map[string]any{"clean_price": "cheap"}), want: 400},
		{name: "calendars_settlement_date", as: viewer(3), method: "GET", path: "/api/v1/calendars/TARGET2/settlement-date?trade_date=2026-12-23&lag=2", want: 200},
		{as: viewer(3), method: "GET", path: "/api/v1/calendars/TARGET2/settlement-date?trade_date=2026-12-23", want: 200},
		{name: "calendars_settlement_date_invalid", as: viewer(3), method: "GET", path: "/api/v1/calendars/TARGET2/settlement-date?lag=-1", want: 400},
		{name: "calendars_unknown", as: viewer(3), method: "GET", path: "/api/v1/calendars/NYSE/settlement-date?trade_date=2026-12-23", want: 404},
		{name: "calendars_holidays", as: viewer(3), method: "GET", path: "/api/v1/calendars/TARGET2/holidays?year=2026", want: 200},
		{as: viewer(3), method: "GET", path: "/api/v1/calendars/TARGET2/holidays", want: 400},
		{as: viewer(3), method: "GET", path: "/api/v1/calendars/NYSE/holidays?year=2026", want: 404},
		{name: "instruments_analytics", as: trader(0), method: "GET", path: "/api/v1/instruments/" + ins[0] + "/analytics?settlement_date=2026-11-24&price=99.5", want: 200},
		{as: trader(0), method: "GET", path: "/api/v1/instruments/" + ins[0] + "/analytics?settlement_date=2026-11-24", want: 200},
		{name: "instruments_analytics_invalid", as: trader(0), method: "GET", path: "/api/v1/instruments/" + ins[0] + "/analytics?settlement_date=tomorrow&price=par", want: 400},
		{as: trader(0), method: "GET", path: "/api/v1/instruments/" + missingID + "/analytics", want: 404},
		{as: anon, method: "POST", path: "/api/v1/analytics/day-count", body: map[string]any{}, want: 401},
	})
	t.Run("decimal text", func(t *testing.T) {
		r := v.run(t, call{as: viewer(0), method: "POST", path: "/api/v1/analytics/day-count",
			body: map[string]any{"day_count": "ACT/360", "start": "2026-01-15", "end": "2026-07-15"}, want: 200}).object(t)
		if r["days"] != float64(181) {
			t.Errorf("ACT/360 2026-01-15 to 2026-07-15: days = %v, want 181", r["days"])
		}
		if _, ok := r["year_fraction"].(string); !ok {
			t.Errorf("year_fraction = %#v, want decimal text", r["year_fraction"])
		}
	})
}
