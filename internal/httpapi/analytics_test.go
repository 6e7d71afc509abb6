package httpapi_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnalytics drives the bond calculator through HTTP against published
// figures (the calculation itself is tested exhaustively in bondmath); the
// point here is the wire: fields, formats and validation details.
func TestAnalytics(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		tr := trader(0)

		t.Run("day-count", func(t *testing.T) {
			// ISDA 30E/360 example: 2007-01-15 → 2007-02-15 is 30 days.
			r := v.do(t, tr, "POST", "/api/v1/analytics/day-count",
				map[string]any{"day_count": "30E/360", "start": "2007-01-15", "end": "2007-02-15", "decimals": 10}, nil)
			want := map[string]any{"days": float64(30), "year_fraction": "0.0833333333"}
			if d := cmp.Diff(want, r.object(t)); d != "" {
				t.Errorf("day-count (-want +got):\n%s", d)
			}
		})

		t.Run("accrued-interest", func(t *testing.T) {
			// 31 CFR 356 App. B, example II.D: 9 1/2 % note accruing from
			// 1985-11-15, settled 1985-11-29; published accrued interest
			// 0.367403 per 100 (Treasury rounds to six places per 100).
			r := v.do(t, tr, "POST", "/api/v1/analytics/accrued-interest", map[string]any{
				"day_count": "ACT/ACT ICMA", "coupon": "9.5", "frequency": "Semi-annual", "accrual_start": "1985-11-15",
				"maturity": "1995-11-15", "settlement_date": "1985-11-29 00:00:00", "nominal": 1000000, "decimals": 6}, nil)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			got := r.object(t)
			if got["previous_coupon_date"] != "1985-11-15" || got["next_coupon_date"] != "1986-05-15" || got["accrued_days"] != float64(14) {
				t.Errorf("coupon dates/days = %v %v %v, want 1985-11-15 1986-05-15 14", got["previous_coupon_date"], got["next_coupon_date"], got["accrued_days"])
			}
			if got["accrued_interest_per_100"] != "0.367403" {
				t.Errorf("accrued_interest_per_100 = %v, want 0.367403", got["accrued_interest_per_100"])
			}
			// For 1,000,000 nominal: 14/181 × 47,500 = 3674.033149…
			if got["accrued_interest"] != "3674.033149" {
				t.Errorf("accrued_interest = %v, want 3674.033149", got["accrued_interest"])
			}
		})

		t.Run("price and yield round trip", func(t *testing.T) {
			terms := map[string]any{"day_count": "ACT/ACT ICMA", "coupon": 2.3, "frequency": "Annual",
				"accrual_start": "2023-01-13", "first_coupon_date": "2024-02-15", "maturity": "2033-02-15",
				"settlement_date": "2026-11-24"}
			price := with(terms, "yield", "2.75")
			r := v.do(t, tr, "POST", "/api/v1/analytics/price", price, nil)
			if r.status != 200 {
				t.Fatalf("price status %d: %s", r.status, r.body)
			}
			clean := r.object(t)["clean_price"].(string)
			r = v.do(t, tr, "POST", "/api/v1/analytics/yield", with(with(terms, "clean_price", clean), "decimals", 8), nil)
			if r.status != 200 {
				t.Fatalf("yield status %d: %s", r.status, r.body)
			}
			if got := r.object(t)["yield"]; got != "2.75" {
				t.Errorf("yield(price(2.75)) = %v, want 2.75", got)
			}
		})

		t.Run("settlement date over Easter", func(t *testing.T) {
			// Thursday 2026-04-02 + 2 TARGET2 days skips Good Friday and Easter Monday.
			r := v.do(t, tr, "GET", "/api/v1/calendars/TARGET2/settlement-date?trade_date=2026-04-02&lag=2", nil, nil)
			want := map[string]any{"calendar": "TARGET2", "trade_date": "2026-04-02", "lag": float64(2), "settlement_date": "2026-04-08"}
			if d := cmp.Diff(want, r.object(t)); d != "" {
				t.Errorf("settlement-date (-want +got):\n%s", d)
			}
		})

		t.Run("holidays", func(t *testing.T) {
			var got struct {
				Holidays []struct{ Date, Name string }
			}
			v.do(t, tr, "GET", "/api/v1/calendars/TARGET2/holidays?year=2026", nil, nil).decode(t, &got)
			var dates []string
			for _, h := range got.Holidays {
				dates = append(dates, h.Date+" "+h.Name)
			}
			// ECB: TARGET2 closing days 2026 (26 December is a Saturday).
			want := []string{"2026-01-01 New Year's Day", "2026-04-03 Good Friday", "2026-04-06 Easter Monday",
				"2026-05-01 Labour Day", "2026-12-25 Christmas Day"}
			if d := cmp.Diff(want, dates); d != "" {
				t.Errorf("holidays 2026 (-want +got):\n%s", d)
			}
		})

		bad := []struct {
			name, method, path string
			body               any
			status             int
			fields             []string
		}{
			{"unknown day count", "POST", "/api/v1/analytics/day-count", map[string]any{"day_count": "ACT/999", "start": "2026-01-01", "end": "2026-02-01"}, 400, []string{"day_count"}},
			{"end before start", "POST", "/api/v1/analytics/day-count", map[string]any{"day_count": "ACT/360", "start": "2026-02-01", "end": "2026-01-01"}, 400, []string{"end"}},
			{"not a date", "POST", "/api/v1/analytics/day-count", map[string]any{"day_count": "ACT/360", "start": "2026-02-30", "end": "yesterday"}, 400, []string{"start", "end"}},
			{"unknown frequency", "POST", "/api/v1/analytics/accrued-interest", map[string]any{"day_count": "30E/360", "coupon": 1, "frequency": "Fortnightly", "accrual_start": "2020-01-01", "maturity": "2030-01-01", "settlement_date": "2026-01-05"}, 400, []string{"frequency"}},
			{"maturity before settlement", "POST", "/api/v1/analytics/accrued-interest", map[string]any{"day_count": "30E/360", "coupon": 1, "frequency": "Annual", "accrual_start": "2020-01-01", "maturity": "2025-01-01", "settlement_date": "2026-01-05"}, 400, []string{"settlement_date"}},
			{"missing terms", "POST", "/api/v1/analytics/accrued-interest", map[string]any{}, 400, []string{"day_count", "coupon", "frequency", "accrual_start", "maturity", "settlement_date"}},
			{"price zero", "POST", "/api/v1/analytics/yield", map[string]any{"day_count": "30E/360", "coupon": 1, "frequency": "Annual", "accrual_start": "2020-01-01", "maturity": "2030-01-01", "settlement_date": "2026-01-05", "clean_price": 0}, 400, []string{"clean_price"}},
			{"price not a number", "POST", "/api/v1/analytics/yield", map[string]any{"day_count": "30E/360", "coupon": 1, "frequency": "Annual", "accrual_start": "2020-01-01", "maturity": "2030-01-01", "settlement_date": "2026-01-05", "clean_price": "abc"}, 400, []string{"clean_price"}},
			{"unknown calendar", "GET", "/api/v1/calendars/NYSE/holidays?year=2026", nil, 404, nil},
			{"year missing", "GET", "/api/v1/calendars/TARGET2/holidays", nil, 400, []string{"year"}},
			{"bad lag", "GET", "/api/v1/calendars/TARGET2/settlement-date?trade_date=2026-01-05&lag=-1", nil, 400, []string{"lag"}},
			{"unknown instrument", "GET", "/api/v1/instruments/00000000-0000-7000-8000-000000000000/analytics", nil, 404, nil},
		}
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				r := v.do(t, tr, tt.method, tt.path, tt.body, nil)
				if r.status != tt.status {
					t.Fatalf("status = %d, want %d: %s", r.status, tt.status, r.body)
				}
				var body struct {
					Details []struct{ Field, Issue string }
				}
				r.decode(t, &body)
				var fields []string
				for _, d := range body.Details {
					fields = append(fields, d.Field)
				}
				if d := cmp.Diff(tt.fields, fields); d != "" {
					t.Errorf("detail fields (-want +got):\n%s\nbody %s", d, strings.TrimSpace(string(r.body)))
				}
			})
		}
	})
}

// with returns a copy of m with k set to v.
func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}
