package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"time"

	"github.com/bondvenue/bondvenue/internal/gcstats"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// openVenue is the venue an open loop drives: scenario c's, on a fresh
// database, with its preload entered. It runs in bvload's process, or with
// --open-venue-cpus in a child process of its own (venueProcess), where
// the parent reaches it through the same three readings.
type openVenue struct {
	db   *store.DB
	srv  *server
	dv   demoVenue
	stop func()
	drop func()

	gc0  gcstats.Snapshot
	cpu0 time.Duration
	eng0 engineStats
	adm0 sequencer.AdmissionStats
}

// venueWindow is the venue's collector and CPU over the measured window.
type venueWindow struct {
	GC  openGC        `json:"gc"`
	CPU time.Duration `json:"cpu"`
}

// venueSummary is what the venue did from the window's start until the
// last answer: batches, admission control, the book at the end.
type venueSummary struct {
	MeanBatch     float64       `json:"mean_batch"`
	MeanBatchTime float64       `json:"mean_batch_ms"`
	Admission     openAdmission `json:"admission"`
	RestingOffers int           `json:"resting_offers"`
}

func newOpenVenue(ctx context.Context, cfg config, dbs *databases, log *slog.Logger) (*openVenue, error) {
	db, dir, drop, err := dbs.fresh(ctx, "open")
	if err != nil {
		return nil, err
	}
	srv, dv, stop, err := startVenue(ctx, db, dir, venueConfig{rateLimit: cfg.rateLimit, queueBudget: cfg.open.queueBudget, log: log})
	if err != nil {
		drop()
		return nil, err
	}
	v := &openVenue{db: db, srv: srv, dv: dv, stop: stop, drop: drop}
	if cfg.open.preload > 0 {
		start := time.Now()
		if err := preload(ctx, srv.core.Svc, dv, cfg.open.preload); err != nil {
			v.close()
			return nil, fmt.Errorf("preload: %w", err)
		}
		log.Warn("preloaded resting offers", "offers", cfg.open.preload, "took", time.Since(start).Round(time.Millisecond).String())
		// The preload's garbage and the heap it grew to are not the
		// window's: collect and hand the memory back to the OS now, not
		// while the window runs.
		debug.FreeOSMemory()
	}
	return v, nil
}

func (v *openVenue) close() {
	v.stop()
	v.drop()
}

// begin marks the window's start.
func (v *openVenue) begin() {
	v.gc0, v.cpu0 = gcstats.Read(), processCPU()
	v.eng0, v.adm0 = countersOf(v.srv.core), v.srv.core.Sequencer.AdmissionStats()
}

// end reads the collector and the CPU since begin.
func (v *openVenue) end() venueWindow {
	gc, cpu := gcstats.Read().Since(v.gc0), processCPU()-v.cpu0
	w := venueWindow{CPU: cpu, GC: openGC{Cycles: gc.Cycles, Pauses: gc.Pauses(), PauseP99: ms(gc.Quantile(0.99)),
		PauseMax: ms(gc.Max()), HeapLive: float64(gc.HeapLive) / 1e6, HeapGoal: float64(gc.HeapGoal) / 1e6, GOGC: gc.GOGC,
		CPU: gc.CPU.Seconds(), Assist: gc.AssistCPU.Seconds()}}
	if cpu > 0 {
		w.GC.Share = gc.CPU.Seconds() / cpu.Seconds()
	}
	return w
}

// summary reads the sequencer's counters since begin and counts the
// resting offers.
func (v *openVenue) summary(ctx context.Context) (venueSummary, error) {
	after, adm := countersOf(v.srv.core), v.srv.core.Sequencer.AdmissionStats()
	s := venueSummary{Admission: openAdmission{Expected: adm.Expected - v.adm0.Expected, Waited: adm.Waited - v.adm0.Waited,
		Full: adm.Full - v.adm0.Full, CPU: adm.CPU - v.adm0.CPU, CostPerCommand: ms(adm.CostPerCommand), CommitCost: ms(adm.CommitCost)}}
	if n := after.Batches - v.eng0.Batches; n > 0 {
		s.MeanBatch = float64(after.Commands-v.eng0.Commands) / float64(n)
		s.MeanBatchTime = ms((after.BatchTime - v.eng0.BatchTime) / time.Duration(n))
	}
	err := v.db.View(ctx, func(tx *store.Tx) error {
		open, err := tx.OpenOffers(ctx)
		for _, o := range open {
			if o.Type == venue.TypeOffer {
				s.RestingOffers++
			}
		}
		return err
	})
	return s, err
}

// --- the venue in a process of its own ---------------------------------------

// venueProcessEnv marks bvload's child process that runs the venue.
const venueProcessEnv = "BVLOAD_VENUE_PROCESS"

// venueHello is the child's first line: where the venue listens and the
// demo data to send offers for.
type venueHello struct {
	URL            string        `json:"url"`
	Traders        []helloTrader `json:"traders"`
	Instruments    []string      `json:"instruments"`
	Market         string        `json:"market"`
	Counterparties int           `json:"counterparties"`
}

type helloTrader struct {
	Participant, Account, User string
	Role                       venue.Role
	Token                      string
}

// venueProcess is the child's side: it starts the venue, says hello on
// out, then answers the parent's lines on in – "begin", "end" (a
// venueWindow) and "summary" (a venueSummary), each with one JSON line –
// until in closes.
func venueProcess(ctx context.Context, cfg config, dbs *databases, log *slog.Logger, in io.Reader, out io.Writer) error {
	v, err := newOpenVenue(ctx, cfg, dbs, log)
	if err != nil {
		return err
	}
	defer v.close()
	hello := venueHello{URL: v.srv.url, Instruments: v.dv.instruments, Market: v.dv.market, Counterparties: v.dv.counterparties}
	for _, t := range v.dv.traders {
		hello.Traders = append(hello.Traders, helloTrader{Participant: t.participant, Account: t.account, User: t.user,
			Role: t.role, Token: t.token})
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(hello); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var reply any
		switch cmd := lines.Text(); cmd {
		case "begin":
			v.begin()
			reply = "ok"
		case "end":
			reply = v.end()
		case "summary":
			if reply, err = v.summary(ctx); err != nil {
				return err
			}
		default:
			return fmt.Errorf("venue process: unknown command %q", cmd)
		}
		if err := enc.Encode(reply); err != nil {
			return err
		}
	}
	return lines.Err()
}

// childVenue is the parent's handle on a venue process.
type childVenue struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *json.Decoder
	hello venueHello
}

// startChildVenue starts bvload again with args as the venue process, on
// the CPUs in cpus, and waits for its hello.
func startChildVenue(args []string, cpus []int) (*childVenue, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), venueProcessEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startPinned(cmd, cpus); err != nil {
		return nil, fmt.Errorf("start the venue process: %w", err)
	}
	c := &childVenue{cmd: cmd, in: in, out: json.NewDecoder(out)}
	if err := c.out.Decode(&c.hello); err != nil {
		c.close()
		return nil, fmt.Errorf("the venue process did not start: %w", err)
	}
	return c, nil
}

// ask sends cmd and decodes the answer into reply.
func (c *childVenue) ask(cmd string, reply any) error {
	if _, err := io.WriteString(c.in, cmd+"\n"); err != nil {
		return fmt.Errorf("venue process: %s: %w", cmd, err)
	}
	if err := c.out.Decode(reply); err != nil {
		return fmt.Errorf("venue process: %s: %w", cmd, err)
	}
	return nil
}

// close ends the venue process (it stops when its input closes) and waits
// for it.
func (c *childVenue) close() error {
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		return errors.Join(errors.New("venue process: killed after 30 s"), <-done)
	}
}

// demoVenue is the hello's demo data as the generator uses it.
func (h venueHello) demoVenue() demoVenue {
	dv := demoVenue{instruments: h.Instruments, market: h.Market, counterparties: h.Counterparties}
	for _, t := range h.Traders {
		dv.traders = append(dv.traders, trader{participant: t.Participant, account: t.Account, user: t.User, role: t.Role, token: t.Token})
	}
	return dv
}
