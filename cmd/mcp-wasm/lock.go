package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
)

func lockCommand() *cli.Command {
	return &cli.Command{
		Name:  "lock",
		Usage: "pin every module of a config file to the digest it has now",
		Description: "Resolves each provider's module: an oci:// tag to the manifest digest it names now\n" +
			"(written as TAG@sha256:...), and every module's bytes to their sha256 (written as\n" +
			"\"sha256\"). The modules are pulled into the module store and checked against the\n" +
			"file's signature policy first. Only those two values change in the file; a reload\n" +
			"or a new replica then runs exactly these bytes, offline once pulled. A reference\n" +
			"already pinned stays pinned: delete its @sha256:... to move it.",
		Flags:  append(commonFlags(), configFlag()),
		Action: lockAction,
	}
}

func lockAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("lock takes no arguments (did you mean --config %s?)", c.Args().First())
	}
	path := c.String("config")
	if path == "" {
		return usageError("lock needs --config FILE")
	}
	cc, err := configFromFlag(c)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	ml, err := newModuleLoader(c, log, cc.insecureRegistries()...)
	if err != nil {
		return err
	}
	var lines []string
	out, err := modsource.RewriteConfig(cc.src.data, func(i int, module string) (string, string, error) {
		spec := cc.providers[i]
		// Signatures are checked; a digest is what lock is here to add.
		m, err := ml.resolve(c.Context, spec.module, spec.sha256, spec.policy.Unpinned(), spec.maxModule, false)
		if err != nil {
			return "", "", err
		}
		pinned := module
		if m.Ref != nil {
			pinned = m.Ref.String()
		}
		lines = append(lines, fmt.Sprintf("%s: %s sha256 %s", spec.path, pinned, oci.DigestHex(m.Digest)))
		return pinned, oci.DigestHex(m.Digest), nil
	})
	if err != nil {
		return failure(fmt.Errorf("%s: %w", path, err))
	}
	if err := writeFileAtomic(path, out); err != nil {
		return failure(err)
	}
	for _, l := range lines {
		fmt.Fprintln(c.App.Writer, termLine(l, 2000))
	}
	fmt.Fprintf(c.App.Writer, "%s: %d module(s) pinned\n", path, len(lines))
	return nil
}

// writeFileAtomic replaces path with data, keeping its mode: a temporary
// file beside it, synced, then renamed.
func writeFileAtomic(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
