package main

import (
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

	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/fix/fixstore"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/transparency"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/demomarket"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/socketio"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/trading"
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

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db dbFlags
	db.register(fs, getenv)
	addr := fs.String("addr", envflag.Getenv(getenv).String("BONDVENUE_ADDR", "127.0.0.1:8080"), "listen address (env BONDVENUE_ADDR)")
	demoFlag := fs.Bool("demo", envflag.Getenv(getenv).Bool("BONDVENUE_DEMO"), "load demo data into an empty database (env BONDVENUE_DEMO)")
	demoMarket := fs.Bool("demo-market", envflag.Getenv(getenv).BoolOr("BONDVENUE_DEMO_MARKET", true),
		"with --demo, simulated participants keep the demo market alive: offers, trades, indicative prices, RFQ answers, news (env BONDVENUE_DEMO_MARKET)")
	demoSeed := fs.Uint64("demo-market-seed", uint64(envflag.Getenv(getenv).Int("BONDVENUE_DEMO_MARKET_SEED", demomarket.DefaultSeed)),
		"seed of the live demo market's random choices, to repeat a run (env BONDVENUE_DEMO_MARKET_SEED)")
	logLevel := fs.String("log-level", envflag.Getenv(getenv).String("BONDVENUE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env BONDVENUE_LOG_LEVEL)")
	rateLimit := fs.Float64("rate-limit", envflag.Getenv(getenv).Float("BONDVENUE_RATE_LIMIT", 100), "requests per second per credential (env BONDVENUE_RATE_LIMIT)")
	tokenTTL := fs.Duration("token-ttl", envflag.Getenv(getenv).Duration("BONDVENUE_TOKEN_TTL", 15*time.Minute), "access token lifetime (env BONDVENUE_TOKEN_TTL)")
	queueBudget := fs.Duration("queue-budget", envflag.Getenv(getenv).Duration("BONDVENUE_QUEUE_BUDGET", sequencer.DefaultQueueBudget),
		"how long a new order, amendment, RFQ, quote or accept may wait for the sequencer before it is refused with 503 and Retry-After; 0: no bound (env BONDVENUE_QUEUE_BUDGET)")
	mic := fs.String("mic", envflag.Getenv(getenv).String("BONDVENUE_MIC", sequencer.DefaultMIC),
		"the venue's ISO 10383 market identifier code on the public tape (env BONDVENUE_MIC)")
	deferralTable := fs.String("deferral-table", envflag.Getenv(getenv).String("BONDVENUE_DEFERRAL_TABLE", ""),
		"a JSON deferral table for the public tape instead of the built-in one (docs/guide.md, \"The public tape\") (env BONDVENUE_DEFERRAL_TABLE)")
	advertise := fs.String("advertise-url", envflag.Getenv(getenv).String("BONDVENUE_ADVERTISE_URL", ""),
		"the URL other instances reach this one at (default http://<listen address>) (env BONDVENUE_ADVERTISE_URL)")
	fixAddr := fs.String("fix-addr", envflag.Getenv(getenv).String("BONDVENUE_FIX_ADDR", "127.0.0.1:5005"),
		"FIX acceptor address; empty (or \"off\") disables it (env BONDVENUE_FIX_ADDR)")
	fixCompID := fs.String("fix-comp-id", envflag.Getenv(getenv).String("BONDVENUE_FIX_COMP_ID", "BONDVENUE"), "the venue's FIX CompID, the clients' TargetCompID (env BONDVENUE_FIX_COMP_ID)")
	fixReset := fs.String("fix-reset-time", envflag.Getenv(getenv).String("BONDVENUE_FIX_RESET_TIME", "00:00:00"),
		"time of day (UTC, HH:MM:SS) at which FIX sessions reset their sequence numbers (env BONDVENUE_FIX_RESET_TIME)")
	if err := parse(fs, args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	envflag.Getenv(getenv).TuneGC()
	// The public tape's settings are checked before the database is touched.
	deferrals := transparency.Default()
	if *deferralTable != "" {
		b, err := os.ReadFile(*deferralTable)
		if err == nil {
			deferrals, err = transparency.Parse(b)
		}
		if err != nil {
			return usageError{Msg: fmt.Sprintf("--deferral-table: %v", err)}
		}
	}
	if !regexp.MustCompile(`^[A-Z0-9]{4}$`).MatchString(*mic) {
		return usageError{Msg: fmt.Sprintf("--mic %q: want four capital letters or digits (ISO 10383)", *mic)}
	}

	database, err := db.openAs(ctx, true)
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
	svc := trading.New(database, trading.Config{TokenTTL: *tokenTTL, Logger: log, RateLimit: *rateLimit, QueueBudget: *queueBudget,
		MIC: *mic, Deferrals: deferrals})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	baseURL := "http://" + ln.Addr().String()
	if *demoFlag {
		_, loaded, err := demo.Load(ctx, svc, db.dataDir, baseURL)
		if err != nil {
			ln.Close()
			return err
		}
		if loaded {
			log.Info("demo data loaded", "credentials", db.dataDir+"/"+demo.CredentialsFile)
		} else {
			log.Info("database not empty: demo data left as it is")
		}
	}

	if err := svc.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer svc.Close()
	if *advertise == "" {
		*advertise = baseURL
	}
	if err := svc.Announce(ctx, *advertise); err != nil {
		ln.Close()
		return err
	}
	log.Info("instance", "id", svc.InstanceID(), "role", svc.Role(), "url", *advertise)
	reg := prometheus.NewRegistry()
	api := httpapi.New(svc, httpapi.Config{Logger: log, Registry: reg})
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", socketio.New(svc, socketio.Config{Logger: log, Registry: reg}))
	mux.Handle("/", api.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	var gw *fix.Gateway
	if *fixAddr != "" && *fixAddr != "off" {
		gw, err = fix.New(svc, fixstore.New(database), fix.Config{Addr: *fixAddr, CompID: *fixCompID, ResetTime: *fixReset, Logger: log, Registry: reg})
		if err == nil {
			err = gw.Start()
		}
		if err != nil {
			ln.Close()
			return err
		}
		fmt.Fprintf(stdout, "bondvenue FIX acceptor on %s (TargetCompID %s)\n", gw.Addr(), *fixCompID)
	}
	var sim *demomarket.Market
	if *demoFlag && *demoMarket {
		// BONDVENUE_DEMO_MARKET_TICK (not a flag: tests set it) paces the
		// simulator faster than its default.
		sim = demomarket.New(svc, demomarket.Config{Seed: *demoSeed, Logger: log,
			Tick: envflag.Getenv(getenv).Duration("BONDVENUE_DEMO_MARKET_TICK", demomarket.DefaultTick)})
		sim.Start()
		defer sim.Stop()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("serving", "url", baseURL, "engine", database.Engine())
	fmt.Fprintf(stdout, "bondvenue listening on %s (%s)\n", baseURL, database.Engine())
	if *demoFlag {
		fmt.Fprintf(stdout, "trading screen: open %s/ and sign in with a client_id and client_secret from %s\n",
			baseURL, filepath.Join(db.dataDir, demo.CredentialsFile))
	}

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	shutdownErr := srv.Shutdown(shutdownCtx)
	if gw != nil {
		gw.Stop() // its sessions log out before the service closes
	}
	if sim != nil {
		sim.Stop() // its last step ends before the sequencer stops
	}
	svc.Close() // after HTTP: in-flight requests got their answers
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
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
