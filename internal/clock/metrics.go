package clock

import "github.com/prometheus/client_golang/prometheus"

// The monitor's figures in /metrics, as of its last check. The kernel's
// are left out while its state is unknown; the latency's p99 until there
// is a sample.
var (
	synchronisedDesc = prometheus.NewDesc("bondvenue_clock_synchronised",
		"1 while the kernel holds the clock synchronised (no STA_UNSYNC, no TIME_ERROR), else 0.", nil, nil)
	estErrorDesc = prometheus.NewDesc("bondvenue_clock_estimated_error_seconds",
		"The kernel's estimated error of the clock (adjtimex esterror), as the time daemon last set it.", nil, nil)
	maxErrorDesc = prometheus.NewDesc("bondvenue_clock_max_error_seconds",
		"The kernel's maximum error of the clock (adjtimex maxerror): the time daemon's bound, plus 500 µs for every second since it last set it.", nil, nil)
	toleranceDesc = prometheus.NewDesc("bondvenue_clock_tolerance_seconds",
		"The divergence from UTC the venue's gateway-to-gateway latency allows (RTS 25): 100 µs at a p99 of at most 1 ms, else 1 ms.", nil, nil)
	latencyDesc = prometheus.NewDesc("bondvenue_gateway_latency_p99_seconds",
		"The 99th percentile of the gateway-to-gateway latency of order entry (REST and FIX) over the latest samples.", nil, nil)
	samplesDesc = prometheus.NewDesc("bondvenue_gateway_latency_samples",
		"How many latency samples the p99 is taken over.", nil, nil)
	degradedDesc = prometheus.NewDesc("bondvenue_clock_degraded",
		"1 while the clock is degraded: unsynchronised, its maximum error over the tolerance, or its state unreadable; else 0.", nil, nil)
)

// Describe describes the monitor's metrics.
func (m *Monitor) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{synchronisedDesc, estErrorDesc, maxErrorDesc, toleranceDesc, latencyDesc, samplesDesc, degradedDesc} {
		ch <- d
	}
}

// Collect reports the last check.
func (m *Monitor) Collect(ch chan<- prometheus.Metric) {
	st := m.Status()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	if st.Known {
		gauge(synchronisedDesc, bit(st.State.Synchronised))
		gauge(estErrorDesc, st.State.EstimatedError.Seconds())
		gauge(maxErrorDesc, st.State.MaxError.Seconds())
	}
	gauge(toleranceDesc, st.Tolerance.Seconds())
	if st.LatencySamples > 0 {
		gauge(latencyDesc, st.LatencyP99.Seconds())
	}
	gauge(samplesDesc, float64(st.LatencySamples))
	gauge(degradedDesc, bit(st.Degraded))
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
