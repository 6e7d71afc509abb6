package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/envflag"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/testenv"

	"github.com/bondvenue/bondvenue/internal/store"
)

// usageError marks a command-line mistake (exit code 2).
type usageError = envflag.UsageError

// config is the parsed command line.
type config struct {
	engine      store.Engine
	databaseURL string
	dataDir     string
	pool        int
	load        loadConfig
	open        openConfig
	scenarios   []string
	rateLimit   float64
	jsonOut     bool
	cpuProfile  string
	memProfile  string
	logLevel    slog.Level
	// args are the arguments as given, for the venue process.
	args []string
}

var allScenarios = []string{"a", "b", "c", "c2"}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bvload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: bvload [flags]\n\nMeasures offer entry over loopback HTTP; every flag can also be set with BVLOAD_<FLAG>.\n\n")
		fs.PrintDefaults()
	}
	var c config
	engine := fs.String("engine", envflag.Getenv(getenv).String("BVLOAD_ENGINE", "sqlite"), "database engine: sqlite or postgres")
	fs.StringVar(&c.databaseURL, "database-url", getenv("BVLOAD_DATABASE_URL"),
		"postgres://… URL of a server where bvload may CREATE and DROP a database per scenario (with --engine postgres)")
	fs.StringVar(&c.dataDir, "data-dir", getenv("BVLOAD_DATA_DIR"), "directory for the scenarios' SQLite files and demo credentials (default: a temporary directory, removed)")
	fs.IntVar(&c.pool, "db-pool", envflag.Getenv(getenv).Int("BVLOAD_DB_POOL", 0), "database pool size (store MaxOpen; 0: the store default)")
	fs.StringVar(&c.load.client, "client", envflag.Getenv(getenv).String("BVLOAD_CLIENT", clientRaw),
		"load generator client: raw (lean HTTP/1.1, as wrk) or net/http (Go's Client, for comparison)")
	fs.IntVar(&c.load.connections, "connections", envflag.Getenv(getenv).Int("BVLOAD_CONNECTIONS", 64), "concurrent keep-alive connections")
	fs.DurationVar(&c.load.duration, "duration", envflag.Getenv(getenv).Duration("BVLOAD_DURATION", 10*time.Second), "measured time per scenario")
	fs.DurationVar(&c.load.warmup, "warmup", envflag.Getenv(getenv).Duration("BVLOAD_WARMUP", 2*time.Second), "unmeasured warm-up per scenario")
	fs.Float64Var(&c.open.rate, "open-rate", envflag.Getenv(getenv).Float("BVLOAD_OPEN_RATE", 0),
		"open loop: send this many offers per second on a fixed schedule to the venue of scenario c, whatever the answers, instead of the closed-loop scenarios (0: closed loop)")
	fs.Float64Var(&c.open.cross, "open-cross", envflag.Getenv(getenv).Float("BVLOAD_OPEN_CROSS", 0), "open loop: share of the offers (0–1) that cross a counterparty's and trade")
	fs.DurationVar(&c.open.timeout, "open-timeout", envflag.Getenv(getenv).Duration("BVLOAD_OPEN_TIMEOUT", 10*time.Second),
		"open loop: a request unanswered this long after its scheduled send times out")
	fs.DurationVar(&c.open.queueBudget, "open-queue-budget", envflag.Getenv(getenv).Duration("BVLOAD_OPEN_QUEUE_BUDGET", sequencer.DefaultQueueBudget),
		"open loop: the venue's queue budget (serve --queue-budget): new offers that cannot start within it are refused with 503; 0: no bound (the closed loop runs without one)")
	fs.IntVar(&c.open.preload, "open-preload", envflag.Getenv(getenv).Int("BVLOAD_OPEN_PRELOAD", 0),
		"open loop: resting offers entered (through the use case, not HTTP) before the warm-up, e.g. 750000 for the collector goal's book")
	fs.IntVar(&c.open.maxInFlight, "open-max-in-flight", envflag.Getenv(getenv).Int("BVLOAD_OPEN_MAX_IN_FLIGHT", 4096),
		"open loop: most requests in flight (one connection each); a request finding them all busy waits and counts as late")
	venueCPUs := fs.String("open-venue-cpus", getenv("BVLOAD_OPEN_VENUE_CPUS"),
		"open loop: run the venue in a process of its own on these CPUs (e.g. 0 or 0-1,3; Linux) and the generator on the others, so that offering more than the venue takes does not starve either")
	scen := fs.String("scenarios", envflag.Getenv(getenv).String("BVLOAD_SCENARIOS", strings.Join(allScenarios, ",")), "scenarios to run: a, b, c, c2")
	fs.Float64Var(&c.rateLimit, "rate-limit", envflag.Getenv(getenv).Float("BVLOAD_RATE_LIMIT", 1e6), "the venue's per-credential request limit (requests/s) during the run")
	fs.BoolVar(&c.jsonOut, "json", envflag.Getenv(getenv).Bool("BVLOAD_JSON"), "print the report as JSON instead of a table")
	fs.StringVar(&c.cpuProfile, "cpuprofile", getenv("BVLOAD_CPUPROFILE"), "write a CPU profile per scenario to <prefix>-<scenario>.pprof")
	fs.StringVar(&c.memProfile, "memprofile", getenv("BVLOAD_MEMPROFILE"), "write an allocation profile per scenario to <prefix>-<scenario>.pprof (sampling every allocation: slower)")
	level := fs.String("log-level", envflag.Getenv(getenv).String("BVLOAD_LOG_LEVEL", "warn"), "level of the venue's log on stderr (info logs every request)")
	err := fs.Parse(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return c, usageError{Msg: "unexpected arguments: " + strings.Join(fs.Args(), " ")}
	}
	if c.open.rate < 0 || c.open.cross < 0 || c.open.cross > 1 || c.open.timeout <= 0 || c.open.maxInFlight < 1 || c.open.queueBudget < 0 || c.open.preload < 0 {
		return c, usageError{Msg: "--open-rate, --open-queue-budget and --open-preload must not be negative, --open-cross within 0–1, --open-timeout and --open-max-in-flight positive"}
	}
	if *venueCPUs != "" {
		if c.open.venueCPUs, err = parseCPUList(*venueCPUs); err != nil {
			return c, usageError{Msg: "--open-venue-cpus: " + err.Error()}
		}
		if c.open.rate == 0 {
			return c, usageError{Msg: "--open-venue-cpus: open loop only, with --open-rate"}
		}
	}
	c.args = args
	if c.open.rate > 0 {
		var misfit []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "scenarios" || f.Name == "connections" || f.Name == "client" {
				misfit = append(misfit, "--"+f.Name)
			}
		})
		if len(misfit) > 0 {
			return c, usageError{Msg: strings.Join(misfit, ", ") + ": closed loop only, not with --open-rate"}
		}
	}
	switch store.Engine(*engine) {
	case store.SQLite:
	case store.Postgres:
		if c.databaseURL == "" {
			return c, usageError{Msg: "--engine postgres needs --database-url postgres://…"}
		}
	default:
		return c, usageError{Msg: fmt.Sprintf("--engine must be sqlite or postgres, not %q", *engine)}
	}
	c.engine = store.Engine(*engine)
	if c.load.connections < 1 || c.load.duration <= 0 || c.load.warmup < 0 {
		return c, usageError{Msg: "--connections and --duration must be positive, --warmup not negative"}
	}
	c.open.duration, c.open.warmup = c.load.duration, c.load.warmup
	if c.load.client != clientRaw && c.load.client != clientNetHTTP {
		return c, usageError{Msg: fmt.Sprintf("--client must be %s or %s, not %q", clientRaw, clientNetHTTP, c.load.client)}
	}
	for _, s := range strings.Split(*scen, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allScenarios, s) {
			return c, usageError{Msg: fmt.Sprintf("unknown scenario %q (a, b, c, c2)", s)}
		}
		if !slices.Contains(c.scenarios, s) {
			c.scenarios = append(c.scenarios, s)
		}
	}
	if err := c.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return c, usageError{Msg: fmt.Sprintf("invalid log level %q", *level)}
	}
	return c, nil
}

// run is the whole program: main only supplies the process's context,
// arguments, environment and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	// The venue runs in this process with the collector target serve gives
	// it; the other scenarios share the process and the setting.
	envflag.Getenv(getenv).TuneGC()
	root := cfg.dataDir
	if root == "" {
		if root, err = os.MkdirTemp("", "bvload-"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	if getenv(venueProcessEnv) == "1" { // the open loop's venue, in a process of its own
		dbs, err := newDatabases(ctx, cfg.engine, cfg.databaseURL, root, cfg.pool, stderr)
		if err != nil {
			return err
		}
		defer dbs.Close()
		return venueProcess(ctx, cfg, dbs, log, os.Stdin, stdout)
	}
	dbs, err := newDatabases(ctx, cfg.engine, cfg.databaseURL, root, cfg.pool, stderr)
	if err != nil {
		return err
	}
	defer dbs.Close()

	rep := report{Engine: string(cfg.engine), Client: cfg.load.client, Connections: cfg.load.connections, Duration: cfg.load.duration.String(),
		Warmup: cfg.load.warmup.String(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU()}
	if cfg.open.rate > 0 {
		rep.Connections, rep.MaxInFlight, rep.Timeout, rep.QueueBudget = 0, cfg.open.maxInFlight, cfg.open.timeout.String(), cfg.open.queueBudget.String()
		if !cfg.jsonOut {
			fmt.Fprintf(stderr, "bvload: open loop, %g offers/s for %s …\n", cfg.open.rate, cfg.open.duration)
		}
		res, err := runOpen(ctx, cfg, dbs, log)
		if err != nil {
			return fmt.Errorf("open loop: %w", err)
		}
		rep.Open = &res
		cfg.scenarios = nil
	}
	for _, name := range cfg.scenarios {
		if !cfg.jsonOut {
			fmt.Fprintf(stderr, "bvload: scenario %s: %s …\n", name, titles[name])
		}
		res, err := runScenario(ctx, cfg, dbs, log, name)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", name, err)
		}
		rep.Scenarios = append(rep.Scenarios, res)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	rep.judge()
	if cfg.jsonOut {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeTable(stdout)
	}
	if err != nil {
		return err
	}
	if n := rep.errors(); n > 0 {
		return fmt.Errorf("invalid run: %d request(s) failed or answered non-2xx", n)
	}
	return nil
}

// runScenario sets up one scenario on a fresh database, drives it and
// tears it down.
func runScenario(ctx context.Context, cfg config, dbs *databases, log *slog.Logger, name string) (result, error) {
	runtime.GC()
	n := cfg.load.connections
	bs := newBodies(n)
	var t target
	var trades atomic.Int64
	var teardown func()
	var venueSvc *testenv.Venue
	switch name {
	case "a":
		srv, err := serve(http.HandlerFunc(trivial), log)
		if err != nil {
			return result{}, err
		}
		teardown = func() { _ = srv.Close() }
		// The same body as (c), so the client does the same work.
		tr := trader{account: "00000000-0000-7000-8000-000000000000"}
		in := "00000000-0000-7000-8000-000000000001"
		t = target{url: srv.url, next: func(w, k int) ([]byte, string) {
			return bs.next(w, func(b []byte) []byte { return offerBody(b, tr, in, in, k+w, false) }), ""
		}}
	case "b":
		db, dir, drop, err := dbs.fresh(ctx, name)
		if err != nil {
			return result{}, err
		}
		// The demo data gives the offers real participants, accounts,
		// users, markets and instruments to reference.
		dv, err := loadDemo(ctx, newCore(db, log, 0, 0).Svc, db, dir)
		if err != nil {
			drop()
			return result{}, err
		}
		srv, err := serve(&baseline{db: db}, log)
		if err != nil {
			drop()
			return result{}, err
		}
		teardown = func() { _ = srv.Close(); drop() }
		t = target{url: srv.url, next: func(w, k int) ([]byte, string) {
			tr := dv.traders[w%len(dv.traders)]
			in := dv.instruments[(w/len(dv.traders)+k)%len(dv.instruments)]
			return bs.next(w, func(b []byte) []byte { return offerBody(b, tr, in, dv.market, k+w, true) }), ""
		}}
	case "c", "c2":
		db, dir, drop, err := dbs.fresh(ctx, name)
		if err != nil {
			return result{}, err
		}
		srv, dv, stop, err := startVenue(ctx, db, dir, venueConfig{rateLimit: cfg.rateLimit, log: log})
		if err != nil {
			drop()
			return result{}, err
		}
		teardown = func() { stop(); drop() }
		venueSvc = srv.core
		url := srv.url + "/api/v1/participant/offers"
		if name == "c" {
			t = target{url: url, next: func(w, k int) ([]byte, string) {
				tr := dv.traders[w%len(dv.traders)]
				in := dv.instruments[(w/len(dv.traders)+k)%len(dv.instruments)]
				return bs.next(w, func(b []byte) []byte { return offerBody(b, tr, in, dv.market, k+w, false) }), tr.token
			}}
			break
		}
		// (c2): each worker alternates a maker that rests (an ask at 100.00
		// of one firm) and a taker that crosses it (a bid at 100.00 of a
		// counterparty firm), so half the offers trade.
		perFirm := len(dv.traders) / len(participantsOf(dv))
		t = target{url: url, next: func(w, k int) ([]byte, string) {
			maker := w % dv.counterparties
			firm, dir := maker, "ask"
			if k%2 == 1 {
				firm, dir = (maker+1)%dv.counterparties, "bid"
			}
			tr := dv.traders[firm*perFirm+(w/dv.counterparties)%perFirm]
			in := dv.instruments[(w/(dv.counterparties*perFirm))%len(dv.instruments)]
			return bs.next(w, func(b []byte) []byte { return offerBodyAt(b, tr, in, dv.market, dir, 10000, false) }), tr.token
		}, seen: func(_ int, body []byte) {
			if filled(body) {
				trades.Add(1)
			}
		}}
	}
	defer teardown()

	stopProfile, err := startProfile(cfg.cpuProfile, cfg.memProfile, name)
	if err != nil {
		return result{}, err
	}
	var before engineStats
	if venueSvc != nil {
		before = countersOf(venueSvc)
	}
	s := load(ctx, cfg.load, t)
	if err := stopProfile(); err != nil {
		return result{}, err
	}
	res := resultOf(name, s)
	if venueSvc != nil {
		after := countersOf(venueSvc)
		if n := after.Batches - before.Batches; n > 0 {
			res.MeanBatch = float64(after.Commands-before.Commands) / float64(n)
			res.MeanBatchTime = ms((after.BatchTime - before.BatchTime) / time.Duration(n))
		}
	}
	if name == "c2" {
		tr := trades.Load()
		res.TradedOffers = &tr
	}
	return res, nil
}

// participantsOf lists the distinct participants of the traders.
func participantsOf(dv demoVenue) []string {
	var out []string
	for _, t := range dv.traders {
		if !slices.Contains(out, t.participant) {
			out = append(out, t.participant)
		}
	}
	return out
}

// startProfile starts the requested profiles of one scenario; the
// function it returns stops them and writes them out.
func startProfile(cpuPrefix, memPrefix, name string) (func() error, error) {
	var cpu *os.File
	if cpuPrefix != "" {
		f, err := os.Create(cpuPrefix + "-" + name + ".pprof")
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		cpu = f
	}
	rate := runtime.MemProfileRate
	if memPrefix != "" {
		runtime.MemProfileRate = 1
	}
	return func() error {
		var err error
		if cpu != nil {
			pprof.StopCPUProfile()
			err = cpu.Close()
		}
		if memPrefix != "" {
			runtime.MemProfileRate = rate
			f, ferr := os.Create(memPrefix + "-" + name + ".pprof")
			if ferr != nil {
				return errors.Join(err, ferr)
			}
			err = errors.Join(err, pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
		}
		return err
	}, nil
}

// parseCPUList reads a CPU list as taskset and /sys write them: numbers
// and ranges, comma-separated ("0", "0-1,3").
func parseCPUList(list string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q is not a CPU list (e.g. 0 or 0-1,3)", list)
		}
		for c := a; c <= b; c++ {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
