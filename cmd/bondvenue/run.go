package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/clock"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/positions"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/transparency"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/demomarket"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/prometheus/client_golang/prometheus"
)

const usage = `usage: bondvenue <command> [flags]

commands:
  serve     run the venue (HTTP API); --demo loads demo data into an empty database and
            runs the live demo market
  migrate   apply database migrations and exit
  admin     local administration: bootstrap, participant, account, user, credential-issue,
            credential-revoke, counterparty, risk-limit (admin help lists them)

Run 'bondvenue <command> -h' for the flags of a command. Every flag can also
be set with an environment variable BONDVENUE_<FLAG> (e.g. BONDVENUE_ADDR).
`

// usageError marks a command-line mistake (exit code 2).
type usageError = envflag.UsageError

// run is the whole program: main only supplies the process's context,
// arguments, environment and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{Msg: "no command given"}
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stdout, stderr)
	case "admin":
		return admin(ctx, args[1:], getenv, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{Msg: fmt.Sprintf("unknown command %q", args[0])}
}

// dbFlags are the flags every command that opens the database shares.
type dbFlags struct {
	dataDir     string
	databaseURL string
}

func (d *dbFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&d.dataDir, "data-dir", envflag.Getenv(getenv).String("BONDVENUE_DATA_DIR", "bondvenue-data"),
		"directory of the embedded SQLite database and demo credentials (env BONDVENUE_DATA_DIR)")
	fs.StringVar(&d.databaseURL, "database-url", getenv("BONDVENUE_DATABASE_URL"),
		"postgres://… URL to use PostgreSQL instead of embedded SQLite (env BONDVENUE_DATABASE_URL)")
}

func (d *dbFlags) open(ctx context.Context) (*store.DB, error) { return d.openAs(ctx, false) }

// openAs opens the database; exclusive (serve) holds a SQLite data
// directory for this process.
func (d *dbFlags) openAs(ctx context.Context, exclusive bool) (*store.DB, error) {
	db, err := store.Open(ctx, store.Config{URL: d.databaseURL, DataDir: d.dataDir, Exclusive: exclusive})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db, nil
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{Msg: fmt.Sprintf("invalid log level %q (debug, info, warn, error)", level)}
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{Msg: fmt.Sprintf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	return nil
}

// serveConfig is the serve command's settings, from its flags and the
// environment.
type serveConfig struct {
	db                 dbFlags
	addr, advertise    string
	demo, demoMarket   bool
	demoSeed           uint64
	logLevel           string
	rateLimit          float64
	tokenTTL           time.Duration
	queueBudget        time.Duration
	mic                string
	deferrals          *transparency.Table
	fixAddr, fixCompID string
	fixReset           string
	clockInterval      time.Duration
}

// serveFlags parses the serve command's flags. The public tape's settings
// are checked here, before the database is touched.
func serveFlags(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	var c serveConfig
	env := envflag.Getenv(getenv)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.db.register(fs, getenv)
	fs.StringVar(&c.addr, "addr", env.String("BONDVENUE_ADDR", "127.0.0.1:8080"), "listen address (env BONDVENUE_ADDR)")
	fs.BoolVar(&c.demo, "demo", env.Bool("BONDVENUE_DEMO"), "load demo data into an empty database (env BONDVENUE_DEMO)")
	fs.BoolVar(&c.demoMarket, "demo-market", env.BoolOr("BONDVENUE_DEMO_MARKET", true),
		"with --demo, simulated participants keep the demo market alive: offers, trades, indicative prices, RFQ answers, news (env BONDVENUE_DEMO_MARKET)")
	fs.Uint64Var(&c.demoSeed, "demo-market-seed", uint64(env.Int("BONDVENUE_DEMO_MARKET_SEED", demomarket.DefaultSeed)),
		"seed of the live demo market's random choices, to repeat a run (env BONDVENUE_DEMO_MARKET_SEED)")
	fs.StringVar(&c.logLevel, "log-level", env.String("BONDVENUE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env BONDVENUE_LOG_LEVEL)")
	fs.Float64Var(&c.rateLimit, "rate-limit", env.Float("BONDVENUE_RATE_LIMIT", 100), "requests per second per credential (env BONDVENUE_RATE_LIMIT)")
	fs.DurationVar(&c.tokenTTL, "token-ttl", env.Duration("BONDVENUE_TOKEN_TTL", 15*time.Minute), "access token lifetime (env BONDVENUE_TOKEN_TTL)")
	fs.DurationVar(&c.queueBudget, "queue-budget", env.Duration("BONDVENUE_QUEUE_BUDGET", sequencer.DefaultQueueBudget),
		"how long a new order, amendment, RFQ, quote or accept may wait for the sequencer before it is refused with 503 and Retry-After; 0: no bound (env BONDVENUE_QUEUE_BUDGET)")
	fs.StringVar(&c.mic, "mic", env.String("BONDVENUE_MIC", sequencer.DefaultMIC),
		"the venue's ISO 10383 market identifier code on the public tape (env BONDVENUE_MIC)")
	deferralTable := fs.String("deferral-table", env.String("BONDVENUE_DEFERRAL_TABLE", ""),
		"a JSON deferral table for the public tape instead of the built-in one (docs/guide.md, \"The public tape\") (env BONDVENUE_DEFERRAL_TABLE)")
	fs.StringVar(&c.advertise, "advertise-url", env.String("BONDVENUE_ADVERTISE_URL", ""),
		"the URL other instances reach this one at (default http://<listen address>) (env BONDVENUE_ADVERTISE_URL)")
	fs.StringVar(&c.fixAddr, "fix-addr", env.String("BONDVENUE_FIX_ADDR", "127.0.0.1:5005"),
		"FIX acceptor address; empty (or \"off\") disables it (env BONDVENUE_FIX_ADDR)")
	fs.StringVar(&c.fixCompID, "fix-comp-id", env.String("BONDVENUE_FIX_COMP_ID", "BONDVENUE"), "the venue's FIX CompID, the clients' TargetCompID (env BONDVENUE_FIX_COMP_ID)")
	fs.StringVar(&c.fixReset, "fix-reset-time", env.String("BONDVENUE_FIX_RESET_TIME", "00:00:00"),
		"time of day (UTC, HH:MM:SS) at which FIX sessions reset their sequence numbers (env BONDVENUE_FIX_RESET_TIME)")
	fs.DurationVar(&c.clockInterval, "clock-check-interval", env.Duration("BONDVENUE_CLOCK_CHECK_INTERVAL", clock.DefaultInterval),
		"how often the clock's synchronisation is checked against the tolerance the gateway latency allows (env BONDVENUE_CLOCK_CHECK_INTERVAL)")
	if err := parse(fs, args); err != nil {
		return c, err
	}
	c.deferrals = transparency.Default()
	if *deferralTable != "" {
		b, err := os.ReadFile(*deferralTable)
		if err == nil {
			c.deferrals, err = transparency.Parse(b)
		}
		if err != nil {
			return c, usageError{Msg: fmt.Sprintf("--deferral-table: %v", err)}
		}
	}
	if !regexp.MustCompile(`^[A-Z0-9]{4}$`).MatchString(c.mic) {
		return c, usageError{Msg: fmt.Sprintf("--mic %q: want four capital letters or digits (ISO 10383)", c.mic)}
	}
	if c.clockInterval <= 0 {
		return c, usageError{Msg: fmt.Sprintf("--clock-check-interval %v: want a positive duration", c.clockInterval)}
	}
	return c, nil
}

// core is the venue's machine on one database: the committed-event feed,
// the sequencer, this instance's part in the cluster, the use cases, the
// live subscriptions, the Idempotency-Keys and the access tokens. Every channel is built over it.
type core struct {
	db      *store.DB
	feed    *feed.Feed
	seq     *sequencer.Sequencer
	cluster *cluster.Cluster
	svc     *trading.Service
	live    *subscribe.Hub
	keys    *idempotency.Keys
	access  *access.Tokens
	records *orderrecords.Service
	posns   *positions.Service
}

// coreConfig tunes the core's parts.
type coreConfig struct {
	trading     trading.Config
	tokenTTL    time.Duration
	queueBudget time.Duration
	mic         string
	deferrals   *transparency.Table
}

// newCore builds the venue's core on db: the one place where every part
// is made and handed to the parts that use it. Nothing runs until start.
func newCore(db *store.DB, cfg coreConfig) *core {
	if cfg.trading.Now == nil {
		cfg.trading.Now = time.Now
	}
	if cfg.trading.Logger == nil {
		cfg.trading.Logger = slog.Default()
	}
	now, log := cfg.trading.Now, cfg.trading.Logger
	db.SetClock(now)
	c := &core{db: db, feed: feed.New(db, log)}
	db.SetCommitHook(c.feed.Committed) // events leave after the commit
	c.seq = sequencer.New(db, log, now, max(cfg.queueBudget, 0))
	c.seq.SetPostTrade(cmp.Or(cfg.deferrals, transparency.Default()), cmp.Or(cfg.mic, sequencer.DefaultMIC))
	c.cluster = cluster.New(db, c.seq, cluster.Config{Now: now, Logger: log})
	c.access = access.New(db, access.Config{TTL: cfg.tokenTTL, Hasher: cfg.trading.Hasher, Now: now})
	c.svc = trading.New(trading.Deps{Store: db, Sequencer: c.seq, Instances: c.cluster, Tokens: c.access}, cfg.trading)
	c.records = orderrecords.New(db, cfg.trading.Now)
	c.posns = positions.New(db)
	c.keys = idempotency.New(db, c.seq, now)
	c.live = subscribe.New(db, c.feed, c.svc, subscribe.Config{Refresh: trading.ViewerRefresh, Now: now, Logger: log})
	return c
}

// start runs the sequencer here, or stands by when another instance leads
// on the same PostgreSQL database (internal/cluster).
func (c *core) start(ctx context.Context) error { return c.cluster.Start(ctx) }

// stop stops the cluster's part, the sequencer after the commands already
// queued, and the feed's tailer.
func (c *core) stop() {
	c.cluster.Stop()
	if c.seq.Running() {
		c.seq.Stop()
	}
	c.feed.Stop()
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := serveFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, cfg.logLevel)
	if err != nil {
		return err
	}
	envflag.Getenv(getenv).TuneGC()
	database, err := cfg.db.openAs(ctx, true)
	if err != nil {
		return err
	}
	defer database.Close()
	applied, err := database.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		log.Info("migrations applied", "versions", applied)
	}
	c := newCore(database, coreConfig{trading: trading.Config{Logger: log, RateLimit: cfg.rateLimit}, tokenTTL: cfg.tokenTTL,
		queueBudget: cfg.queueBudget, mic: cfg.mic, deferrals: cfg.deferrals})
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	baseURL := "http://" + ln.Addr().String()
	ch, err := startVenue(ctx, c, cfg, baseURL, log, stdout, getenv)
	if err != nil {
		ln.Close()
		return err
	}
	defer c.stop()
	errc := make(chan error, 1)
	go func() { errc <- ch.http.Serve(ln) }()
	log.Info("serving", "url", baseURL, "engine", database.Engine())
	fmt.Fprintf(stdout, "bondvenue listening on %s (%s)\n", baseURL, database.Engine())
	if cfg.demo {
		fmt.Fprintf(stdout, "trading screen: open %s/ and sign in with a client_id and client_secret from %s\n",
			baseURL, filepath.Join(cfg.db.dataDir, demo.CredentialsFile))
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownErr := ch.stop()
	c.stop() // after HTTP: in-flight requests got their answers
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// channels are the venue's ways in over one core: HTTP (REST and the
// streams), the FIX acceptor and the simulated demo firms; and the watch
// on the clock, whose tolerance their latency sets.
type channels struct {
	http  *http.Server
	fix   *fix.Gateway
	sim   *demomarket.Market
	clock *clock.Monitor
}

// startVenue loads the demo data if asked, starts the core and announces
// this instance, then builds and starts its channels (HTTP serves once
// the caller calls Serve) and the clock's monitor, to which REST and FIX
// report their order entry's latency.
func startVenue(ctx context.Context, c *core, cfg serveConfig, baseURL string, log *slog.Logger, stdout io.Writer,
	getenv func(string) string) (*channels, error) {
	if cfg.demo {
		_, loaded, err := demo.Load(ctx, c.svc, cfg.db.dataDir, baseURL)
		if err != nil {
			return nil, err
		}
		if loaded {
			log.Info("demo data loaded", "credentials", cfg.db.dataDir+"/"+demo.CredentialsFile)
		} else {
			log.Info("database not empty: demo data left as it is")
		}
	}
	// The deferral table is this command's setting: the audit trail records
	// it whenever an instance starts with another one.
	cli := trading.System
	cli.Channel = venue.ChannelCLI
	if _, err := c.svc.RecordDeferralTable(ctx, cli, cmp.Or(cfg.deferrals, transparency.Default())); err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	advertise := cmp.Or(cfg.advertise, baseURL)
	if err := c.cluster.Announce(ctx, advertise); err != nil {
		c.stop()
		return nil, err
	}
	log.Info("instance", "id", c.cluster.InstanceID(), "role", c.cluster.Role(), "url", advertise)
	reg := prometheus.NewRegistry()
	latency := clock.NewLatency(clock.DefaultWindow)
	mon := clock.NewMonitor(clock.Kernel{}, latency, clock.Config{Interval: cfg.clockInterval, Logger: log})
	reg.MustRegister(mon)
	api := httpapi.New(httpapi.Deps{Trading: c.svc, Live: c.live, Cluster: c.cluster, Engine: c.seq, Keys: c.keys, Access: c.access, Records: c.records, Positions: c.posns,
		Clock: mon, Latency: latency}, httpapi.Config{Logger: log, Registry: reg})
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", socketio.New(c.access, c.live, socketio.Config{Logger: log, Registry: reg,
		Phases: c.svc.MarketPhases}))
	mux.Handle("/", api.Handler())
	ch := &channels{http: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	if cfg.fixAddr != "" && cfg.fixAddr != "off" {
		gw, err := fix.New(fix.Deps{Trading: c.svc, Live: c.live, Cluster: c.cluster, Keys: c.keys, Access: c.access, Latency: latency}, fixstore.New(c.db),
			fix.Config{Addr: cfg.fixAddr, CompID: cfg.fixCompID, ResetTime: cfg.fixReset, Logger: log, Registry: reg})
		if err == nil {
			err = gw.Start()
		}
		if err != nil {
			c.stop()
			return nil, err
		}
		ch.fix = gw
		fmt.Fprintf(stdout, "bondvenue FIX acceptor on %s (TargetCompID %s)\n", gw.Addr(), cfg.fixCompID)
	}
	if cfg.demo && cfg.demoMarket {
		// BONDVENUE_DEMO_MARKET_TICK (not a flag: tests set it) paces the
		// simulator faster than its default.
		ch.sim = demomarket.New(c.svc, c.cluster, demomarket.Config{Seed: cfg.demoSeed, Logger: log,
			Tick: envflag.Getenv(getenv).Duration("BONDVENUE_DEMO_MARKET_TICK", demomarket.DefaultTick)})
		ch.sim.Start()
	}
	ch.clock = mon
	mon.Start()
	return ch, nil
}

// stop shuts HTTP down (in-flight requests get their answers), logs the
// FIX sessions out, ends the simulator's last step and the clock's
// checks, all before the core stops.
func (ch *channels) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := ch.http.Shutdown(ctx)
	if ch.fix != nil {
		ch.fix.Stop()
	}
	if ch.sim != nil {
		ch.sim.Stop()
	}
	ch.clock.Stop()
	return err
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db dbFlags
	db.register(fs, getenv)
	if err := parse(fs, args); err != nil {
		return err
	}
	database, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer database.Close()
	applied, err := database.Migrate(ctx)
	if err != nil {
		return err
	}
	v, err := database.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d migration(s); schema version %d (%s)\n", len(applied), v, database.Engine())
	return nil
}
