package fix

import "github.com/prometheus/client_golang/prometheus"

// metrics are the gateway's figures in /metrics.
type metrics struct {
	sessions  prometheus.Gauge
	sent      *prometheus.CounterVec
	received  *prometheus.CounterVec
	conflated prometheus.Counter
	dropped   prometheus.Counter
	logons    *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "bondvenue_fix_sessions",
			Help: "FIX sessions logged on."}),
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bondvenue_fix_messages_sent_total",
			Help: "Application messages queued to FIX sessions, by MsgType."}, []string{"msg_type"}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bondvenue_fix_messages_received_total",
			Help: "Application messages received from FIX sessions, by MsgType."}, []string{"msg_type"}),
		conflated: prometheus.NewCounter(prometheus.CounterOpts{Name: "bondvenue_fix_md_conflated_total",
			Help: "Market data incrementals skipped for sessions whose client reads too slowly (a snapshot follows)."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "bondvenue_fix_sessions_dropped_total",
			Help: "FIX sessions disconnected because their client stopped reading."}),
		logons: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bondvenue_fix_logons_total",
			Help: "FIX logons by result (accepted, refused)."}, []string{"result"}),
	}
	if reg != nil {
		reg.MustRegister(m.sessions, m.sent, m.received, m.conflated, m.dropped, m.logons)
	}
	return m
}
