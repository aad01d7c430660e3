package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/buildinfo"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

// version is which build of mcp-wasm runs, shown by --version, sent as
// serverInfo.version and labelled on mcpwasm_build_info: the one given at
// link time (-ldflags "-X main.version=v1.2.3", as deploy/Dockerfile can),
// else the one the Go toolchain recorded in the binary (internal/buildinfo).
var version string

// build is the build record, its Version set to version.
var build = buildinfo.Read()

func init() {
	if version != "" {
		build.Version = version
	} else {
		version = build.Version
	}
}

// exitError carries a process exit code through urfave/cli.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// run is main without os.Exit, so tests can drive the whole CLI.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	if err := app.RunContext(ctx, args); err != nil {
		var ee *exitError
		// An error can quote a guest (its error message, sanitized by the
		// runtime) or a file: termText keeps its lines and escapes the rest.
		if errors.As(err, &ee) {
			if ee.err != nil {
				fmt.Fprintln(stderr, "mcp-wasm:", termText(ee.err.Error()))
			}
			return ee.code
		}
		fmt.Fprintln(stderr, "mcp-wasm:", termText(err.Error()))
		return 2
	}
	return 0
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	commands := []*cli.Command{inspectCommand(), callCommand(), serveCommand(), validateCommand(),
		pushCommand(), pullCommand(), lockCommand(), checkCommand(), newCommand(), compileCommand()} // push.go, pull.go, lock.go, check.go, new.go, compile.go
	exactValues(commands)
	return &cli.App{
		Name:    "mcp-wasm",
		Usage:   "serve MCP resources from sandboxed WebAssembly providers",
		Version: version,
		Description: "Providers are untrusted .wasm modules speaking the mcpw_v1 ABI (abi/ABI.md). Every call\n" +
			"runs under a deadline, a memory cap and an output cap; providers get no files, network,\n" +
			"environment, clock or randomness unless the operator grants them.\n" +
			"Flags go before a command's arguments. A repeatable flag takes each value whole,\n" +
			"commas included (--allow-dir /a,b is one directory): repeat it to give several.",
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		Commands:             commands,
		ExitErrHandler:       func(*cli.Context, error) {},
		// A repeatable flag takes each value exactly as written: urfave/cli
		// would otherwise split "--allow-dir /a,/b" into two grants and
		// "--config-value k=a,b" into a second, broken one. Lists inside a
		// value (--allow-http GET,POST=PREFIX) are parsed by the flag's own
		// syntax. RATIONALE: "Why is a repeatable flag never split at commas?"
		DisableSliceFlagSeparator: true,
	}
}

// exactValues makes every repeatable flag keep the spaces around a value
// too (urfave/cli trims them by default): a path or value is the
// operator's, byte for byte.
func exactValues(commands []*cli.Command) {
	for _, c := range commands {
		for _, f := range c.Flags {
			if s, ok := f.(*cli.StringSliceFlag); ok {
				s.KeepSpace = true
			}
		}
	}
}

// commonFlags are accepted by every command, after the command name.
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "text or json (logs go to stderr)"},
		&cli.StringFlag{Name: "cache-dir", Value: defaultCacheDir(), Usage: "private (0700) `DIR` of the compilation cache, the rewritten modules and the module store (DIR/modules); empty disables all three"},
		&cli.BoolFlag{Name: "cache-readonly", Usage: "use --cache-dir as baked by `mcp-wasm compile` without writing to it (automatic when it cannot be written); modules it lacks compile into TMPDIR"},
		registryFlag(), // modules.go
	}
}

func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mcp-wasm")
	}
	return ""
}

func newLogger(c *cli.Context) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return nil, usageError("--log-level %q: use debug, info, warn or error", c.String("log-level"))
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.String("log-format") {
	case "text":
		return slog.New(slog.NewTextHandler(c.App.ErrWriter, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(c.App.ErrWriter, opts)), nil
	}
	return nil, usageError("--log-format %q: use text or json", c.String("log-format"))
}

// newLoggedRuntime builds the logger and the host runtime from the common
// flags: the start of every command that runs guests.
// oneModule is what inspect, call and check share: the provider spec the
// flags give for the module ref, a runtime and a loader that resolves the
// ref as serve would (pins, signatures, the module store). The caller
// closes the runtime.
func oneModule(c *cli.Context, ref string) (config.Provider, *runtime.Runtime, *served.Loader, error) {
	spec, err := providerFromFlags(c)
	if err != nil {
		return config.Provider{}, nil, nil, err
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return config.Provider{}, nil, nil, err
	}
	loader, err := newLoader(c, rt, log, nil) // configserve.go
	if err != nil {
		_ = rt.Close(c.Context)
		return config.Provider{}, nil, nil, err
	}
	spec.Module = config.ModuleRef(ref)
	return spec, rt, loader, nil
}

func newLoggedRuntime(c *cli.Context) (*slog.Logger, *runtime.Runtime, error) {
	log, err := newLogger(c)
	if err != nil {
		return nil, nil, err
	}
	rt, err := newRuntime(c, log)
	if err != nil {
		return nil, nil, err
	}
	return log, rt, nil
}

// newRuntime builds the host runtime from the global flags.
func newRuntime(c *cli.Context, log *slog.Logger, observer ...runtime.Observer) (*runtime.Runtime, error) {
	cfg := runtime.NewConfig().WithCacheDir(c.String("cache-dir")).WithCacheReadOnly(c.Bool("cache-readonly")).
		WithLogger(log).WithTrustedModule(defaultprovider.Wasm())
	if c.IsSet("max-concurrency") { // serve's
		cfg = cfg.WithMaxConcurrency(c.Int("max-concurrency"))
	}
	if slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f.Names()[0] == "read-cache" }) { // serve's
		n, err := config.ParseSize(c.String("read-cache"))
		if err != nil {
			return nil, usageError("--read-cache: %v", err)
		}
		cfg = cfg.WithReadCache(int64(n))
	} else {
		cfg = cfg.WithReadCache(0) // one call per process: nothing to reuse
	}
	for _, o := range observer { // serve's metrics
		cfg = cfg.WithObserver(o)
	}
	rt, err := runtime.New(c.Context, cfg)
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	return rt, nil
}

// flagAfterArgs refuses a flag of the command written after its
// arguments ("inspect X.wasm --json"): urfave/cli stops reading flags at the
// first argument, so it would be taken as an argument. The error shows
// where it goes instead.
func flagAfterArgs(c *cli.Context, usage string) error {
	for _, a := range c.Args().Slice() {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name == "" {
			continue
		}
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					return usageError("flag %s comes after the arguments, where it is not read: put every flag before them (mcp-wasm %s [flags] %s)", a, c.Command.Name, usage)
				}
			}
		}
	}
	return nil
}

func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func failure(err error) error { return &exitError{code: 1, err: err} }
