package socketio_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// TestSessionFrames holds the Socket.IO layer's wire format on its own,
// without a transport or a venue, to testdata/session.sio: the packets a
// client sends as the session reads them ("<"), and the frames the session
// writes (">"): a namespace's connect, a connect_error 401, an event with
// its (record, meta), and a disconnect.
func TestSessionFrames(t *testing.T) {
	var tr transcript
	for _, in := range []string{
		`0/ohlc,{"token":"t","interval":"1m","last_seq":41}`,
		`0/offers,`,
		`0`,
		`1/trades,`,
		`2/news,7["ignored"]`,
		`3/news,7[]`,
		`4/news,{}`,
		`0/news,{not json`,
		``,
	} {
		tr.b.WriteString("< " + in + " → " + socketio.ParsePacket(in) + "\n")
	}
	tr.add(">", string(socketio.ConnectFrame("/trades", "nsp-sid")))
	tr.add(">", string(socketio.ConnectFrame("/", "root-sid")))
	tr.add(">", string(socketio.ConnectErrorFrame("/orders", "Invalid Token", map[string]int{"statusCode": http.StatusUnauthorized})))
	tr.add(">", string(socketio.ConnectErrorFrame("/unknown", "Invalid namespace", nil)))
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	d := udecimal.MustParse
	bar := wire.BarOf(subscribe.Bar{InstrumentID: "ins-1", MarketID: "mkt-1", Interval: "1m", OpenTime: at,
		Open: d("99.5"), High: d("100.25"), Low: d("99.5"), Close: d("100"), Volume: d("3000000"), Trades: 3})
	f, err := socketio.EventFrame("/ohlc", "ohlc.update", bar, 42, at.Add(15*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	tr.b.WriteString("> " + string(f) + "\n") // the record kept whole: it is the layer's payload
	tr.add(">", string(socketio.DisconnectFrame("/trades")))
	tr.check(t, "session")
}
