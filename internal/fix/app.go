package fix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// Tags the gateway reads or writes by number.
const (
	tagAccount         quickfix.Tag = 1
	tagAvgPx           quickfix.Tag = 6
	tagClOrdID         quickfix.Tag = 11
	tagCumQty          quickfix.Tag = 14
	tagCurrency        quickfix.Tag = 15
	tagExecID          quickfix.Tag = 17
	tagSecurityIDSrc   quickfix.Tag = 22
	tagLastPx          quickfix.Tag = 31
	tagLastQty         quickfix.Tag = 32
	tagMsgType         quickfix.Tag = 35
	tagOrderID         quickfix.Tag = 37
	tagOrderQty        quickfix.Tag = 38
	tagOrdStatus       quickfix.Tag = 39
	tagOrdType         quickfix.Tag = 40
	tagOrigClOrdID     quickfix.Tag = 41
	tagPossDupFlag     quickfix.Tag = 43
	tagPrice           quickfix.Tag = 44
	tagSecurityID      quickfix.Tag = 48
	tagSide            quickfix.Tag = 54
	tagSymbol          quickfix.Tag = 55
	tagText            quickfix.Tag = 58
	tagTimeInForce     quickfix.Tag = 59
	tagTransactTime    quickfix.Tag = 60
	tagSettlDate       quickfix.Tag = 64
	tagOrdRejReason    quickfix.Tag = 103
	tagCxlRejReason    quickfix.Tag = 102
	tagSettlCurrAmt    quickfix.Tag = 119
	tagExpireTime      quickfix.Tag = 126
	tagExecType        quickfix.Tag = 150
	tagLeavesQty       quickfix.Tag = 151
	tagAccruedInterest quickfix.Tag = 159
	tagCouponRate      quickfix.Tag = 223
	tagSecurityReqID   quickfix.Tag = 320
	tagSecurityRespID  quickfix.Tag = 322
	tagRefSeqNum       quickfix.Tag = 45
	tagRefMsgType      quickfix.Tag = 372
	tagBusinessReason  quickfix.Tag = 380
	tagBusinessRefID   quickfix.Tag = 379
	tagCxlRejRespTo    quickfix.Tag = 434
	tagNoRelatedSym    quickfix.Tag = 146
	tagMaturityDate    quickfix.Tag = 541
	tagMsgSeqNum       quickfix.Tag = 34
	tagUsername        quickfix.Tag = 553
	tagPassword        quickfix.Tag = 554
	tagSecurityReqType quickfix.Tag = 559
	tagSecurityResult  quickfix.Tag = 560
	tagRoundLot        quickfix.Tag = 561
	tagMinTradeVol     quickfix.Tag = 562
	tagOrdStatusReqID  quickfix.Tag = 790
	tagTotNoRelatedSym quickfix.Tag = 393
	tagLastFragment    quickfix.Tag = 893
	tagTrdMatchID      quickfix.Tag = 880
	tagMarketID        quickfix.Tag = 1301
)

// badCredentials is the Logout text of a refused logon (docs/fix-rules-of-engagement.md, "Logon (35=A)").
const badCredentials = "client_id and/or client_secret is wrong or missing"

// OnCreate is called when the engine makes a session (on connection).
func (g *Gateway) OnCreate(quickfix.SessionID) {}

// FromAdmin authenticates a Logon: 553/554 are an API credential's
// client_id and client_secret, and the SenderCompID is bound to that
// credential at its first logon.
func (g *Gateway) FromAdmin(msg *quickfix.Message, id quickfix.SessionID) quickfix.MessageRejectError {
	if !msg.IsMsgTypeOf("A") {
		return nil
	}
	user, _ := msg.Body.GetString(tagUsername)
	secret, _ := msg.Body.GetString(tagPassword)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := g.access.AuthenticateClient(ctx, user, secret)
	if err != nil {
		g.log.Warn("fix logon refused", "sender_comp_id", id.TargetCompID, "client_id", user, "reason", "bad credentials")
		g.m.logons.WithLabelValues("refused").Inc()
		return quickfix.RejectLogon{Text: badCredentials}
	}
	if err := g.store.BindCompID(ctx, id.TargetCompID, user, g.now()); err != nil {
		_, text := rejectOf(err)
		g.log.Warn("fix logon refused", "sender_comp_id", id.TargetCompID, "client_id", user, "reason", text)
		g.m.logons.WithLabelValues("refused").Inc()
		return quickfix.RejectLogon{Text: text}
	}
	// A Logon numbered past the next number expected comes after a gap,
	// which the engine asks the peer to fill once it has answered. (Read
	// before the gateway's lock: the store takes it under its own.)
	gap := 0
	if seq, err := msg.Header.GetInt(tagMsgSeqNum); err == nil {
		if st, ok := g.stores.Load(id.String()); ok && seq > st.(*messageStore).NextTargetMsgSeqNum() {
			gap = seq
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, on := g.sessions[id.String()]; on {
		return quickfix.RejectLogon{Text: "this SenderCompID is logged on already"}
	}
	p.Channel = venue.ChannelFIX
	g.authed[id.String()] = p
	delete(g.gaps, id.String())
	if gap > 0 {
		g.gaps[id.String()] = gap
	}
	// A session that never sent a report starts after the log's last
	// event as of now, before the Logon is answered: whatever the client
	// causes once it sees the answer comes after.
	if seq, err := g.live.LastEventSeq(ctx); err == nil {
		g.startSeq[id.String()] = seq
	}
	g.m.logons.WithLabelValues("accepted").Inc()
	return nil
}

// OnLogon starts the session's feed of execution reports.
func (g *Gateway) OnLogon(id quickfix.SessionID) {
	g.mu.Lock()
	p, ok := g.authed[id.String()]
	if !ok {
		g.mu.Unlock()
		return
	}
	s := newSession(g, id, p)
	s.startSeq = g.startSeq[id.String()]
	if gap, ok := g.gaps[id.String()]; ok {
		if st, ok := g.stores.Load(id.String()); ok {
			store := st.(*messageStore)
			s.inSync = func() bool { return store.NextTargetMsgSeqNum() >= gap }
		}
	}
	g.sessions[id.String()] = s
	g.mu.Unlock()
	g.m.sessions.Inc()
	g.log.Info("fix logon", "sender_comp_id", id.TargetCompID, "client_id", p.ClientID, "participant_id", p.ParticipantID)
	s.start()
	go func() {
		if s.awaitInSync() {
			s.recentNews(s.ctx, 5)
		}
	}()
}

// OnLogout ends the session's feed.
func (g *Gateway) OnLogout(id quickfix.SessionID) {
	g.mu.Lock()
	s := g.sessions[id.String()]
	g.mu.Unlock()
	if s != nil {
		// The orders in flight land before cancel on disconnect, and the
		// stored incoming number catches up while the session still may
		// write.
		s.settle()
	}
	g.mu.Lock()
	delete(g.sessions, id.String())
	delete(g.authed, id.String())
	delete(g.startSeq, id.String())
	delete(g.gaps, id.String())
	g.mu.Unlock()
	g.conns.Delete(id.String())
	if s != nil {
		g.m.sessions.Dec()
		s.stop()
		g.log.Info("fix logout", "sender_comp_id", id.TargetCompID, "client_id", s.p.ClientID)
		s.cancelOnDisconnect()
	}
}

// ToAdmin: an admin message ends no event.
func (g *Gateway) ToAdmin(_ *quickfix.Message, id quickfix.SessionID) { g.setMark(id.String(), 0) }

// errNotResent gap-fills a message on resend.
var errNotResent = errors.New("not resent")

// ToApp is called for every application message before it is kept and
// sent, and for each one resent. Market data and news are not resent (a
// client re-requests a snapshot): they are gap-filled.
func (g *Gateway) ToApp(msg *quickfix.Message, id quickfix.SessionID) error {
	if dup, _ := msg.Header.GetBool(tagPossDupFlag); dup {
		if t, _ := msg.MsgType(); t == "W" || t == "X" || t == "B" {
			return errNotResent
		}
		return nil
	}
	seq, _ := g.msgMarks.Load(msg)
	mark, _ := seq.(int64)
	g.setMark(id.String(), mark)
	return nil
}

// orderEntry are the messages by which a firm enters, amends, cancels,
// quotes, hits or declines: their gateway-to-gateway latency is recorded
// (answered), a NewOrderSingle's by newOrder, which may answer after
// FromApp returns.
var orderEntry = map[string]bool{"D": true, "F": true, "G": true, "R": true, "S": true, "AG": true, "AJ": true, "i": true, "q": true}

// FromApp hands an application message to its handler.
func (g *Gateway) FromApp(msg *quickfix.Message, id quickfix.SessionID) quickfix.MessageRejectError {
	start := time.Now() // the message's arrival, for the gateway-to-gateway latency
	g.mu.Lock()
	s := g.sessions[id.String()]
	g.mu.Unlock()
	if s == nil {
		return quickfix.NewBusinessMessageRejectError("not logged on", 6, nil)
	}
	t, err := msg.MsgType()
	if err != nil {
		return err
	}
	g.m.received.WithLabelValues(t).Inc()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if t != "D" {
		if orderEntry[t] {
			defer g.answered(start)
		}
		s.settle() // the session's orders in flight first
	}
	switch t {
	case "x":
		return s.securityList(ctx, msg)
	case "D":
		return s.newOrder(ctx, msg, start)
	case "F":
		return s.cancelOrder(ctx, msg)
	case "G":
		return s.replaceOrder(ctx, msg)
	case "H":
		return s.orderStatus(ctx, msg)
	case "V":
		return s.marketData(ctx, msg)
	case "AD":
		return s.tradeCaptureRequest(ctx, msg)
	case "R":
		return s.quoteRequest(ctx, msg)
	case "S":
		return s.quote(ctx, msg)
	case "AG":
		return s.declineRFQ(ctx, msg)
	case "AJ":
		return s.quoteResponse(ctx, msg)
	case "i":
		return s.massQuote(ctx, msg)
	case "q":
		return s.massCancel(ctx, msg)
	case "J":
		return s.allocationInstruction(ctx, msg)
	}
	return quickfix.UnsupportedMessageType()
}

// answered records the gateway-to-gateway latency of an order-entry
// message that arrived at start, now that the venue has its answer: a
// refusal has been sent, an accepted command committed (its report leaves
// from the session's follower of the committed-event feed).
func (g *Gateway) answered(start time.Time) {
	if g.latency != nil {
		g.latency.Observe(time.Since(start))
	}
}

// send sends an application message on the session. A session whose
// client has stopped reading until dropAt messages wait is disconnected.
func (g *Gateway) send(id quickfix.SessionID, m *quickfix.Message) {
	if err := quickfix.SendToTarget(m, id); err != nil {
		g.log.Warn("fix send", "sender_comp_id", id.TargetCompID, "err", err)
		return
	}
	t, _ := m.MsgType()
	g.m.sent.WithLabelValues(t).Inc()
	if g.backlog(id.String()).Add(1) == g.cfg.DropAt {
		g.log.Warn("fix session dropped: its client does not read", "sender_comp_id", id.TargetCompID, "queued", g.cfg.DropAt)
		g.m.dropped.Inc()
		if c, ok := g.conns.Load(id.String()); ok {
			_ = c.(net.Conn).Close()
		}
	}
}

// newMessage returns a message of type t.
func newMessage(t string) *quickfix.Message {
	m := quickfix.NewMessage()
	m.Header.SetString(tagMsgType, t)
	return m
}

// businessReject answers a message the venue cannot act on.
func businessReject(in *quickfix.Message, reason, text string, refID string) *quickfix.Message {
	m := newMessage("j")
	if seq, err := in.Header.GetInt(quickfix.Tag(34)); err == nil {
		m.Body.SetInt(tagRefSeqNum, seq)
	}
	if t, err := in.MsgType(); err == nil {
		m.Body.SetString(tagRefMsgType, t)
	}
	if refID != "" {
		m.Body.SetString(tagBusinessRefID, refID)
	}
	m.Body.SetString(tagBusinessReason, reason)
	m.Body.SetString(tagText, text)
	return m
}

// logFactory logs the engine through slog, with 554 (the client secret)
// masked wherever a message is logged.
type logFactory struct {
	log *slog.Logger
	g   *Gateway
}

func (f logFactory) Create() (quickfix.Log, error) { return engineLog{log: f.log}, nil }

func (f logFactory) CreateSessionLog(id quickfix.SessionID) (quickfix.Log, error) {
	return engineLog{log: f.log.With("sender_comp_id", id.TargetCompID), backlog: f.g.backlog(id.String()), g: f.g, id: id.String()}, nil
}

// engineLog logs the engine; a session's log also counts the application
// messages handed to the connection's writer off its backlog.
type engineLog struct {
	log     *slog.Logger
	backlog *atomic.Int64 // nil for the global log
	g       *Gateway
	id      string
}

var secretField = regexp.MustCompile(`(^|\x01)554=[^\x01]*`)

// mask hides a password field in a raw message and shows the separators.
func mask(b []byte) string {
	b = secretField.ReplaceAll(b, []byte("${1}554=***"))
	return string(bytes.ReplaceAll(b, []byte{1}, []byte{'|'}))
}

func (l engineLog) OnIncoming(b []byte) { l.log.Debug("fix in", "msg", mask(b)) }
func (l engineLog) OnOutgoing(b []byte) {
	l.log.Debug("fix out", "msg", mask(b))
	if l.backlog == nil || admin(b) || bytes.Contains(b, []byte("\x0143=Y\x01")) {
		return
	}
	switch n := l.backlog.Add(-1); {
	case n < 0:
		l.backlog.Store(0)
	case n == l.g.cfg.ResumeAt:
		l.g.drained(l.id)
	}
}

// admin reports whether a raw message is a session-level one.
func admin(b []byte) bool {
	i := bytes.Index(b, []byte("\x0135="))
	if i < 0 {
		return true
	}
	t := b[i+4:]
	if j := bytes.IndexByte(t, 1); j >= 0 {
		t = t[:j]
	}
	return len(t) == 1 && bytes.IndexByte([]byte("012345A"), t[0]) >= 0
}
func (l engineLog) OnEvent(s string) { l.log.Debug("fix event", "event", maskText(s)) }
func (l engineLog) OnEventf(format string, a ...any) {
	l.log.Debug("fix event", "event", maskText(fmt.Sprintf(format, a...)))
}

// maskText masks a secret in an engine event, which may quote a message.
func maskText(s string) string { return mask([]byte(s)) }

// drained tells a session its client has read its backlog down.
func (g *Gateway) drained(id string) {
	g.mu.Lock()
	s := g.sessions[id]
	g.mu.Unlock()
	if s != nil {
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
}
