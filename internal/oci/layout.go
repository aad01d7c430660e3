package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// The layouts a module is found in besides the TAG-Runtime artifact: the
// layer media types other tools give a lone module, the layer types of a
// container image (Docker+Wasm, a `FROM scratch` image with one .wasm
// file), and the platform an image index names for Wasm.
const (
	mediaTypeWasmContent   = "application/vnd.wasm.content.layer.v1+wasm"        // wasm-to-oci, Krustlet
	mediaTypeModuleContent = "application/vnd.module.wasm.content.layer.v1+wasm" // Docker+Wasm, runwasi
	mediaTypeOCITar        = "application/vnd.oci.image.layer.v1.tar"            // also what oras push gives a file with no :type
	mediaTypeOCITarGzip    = "application/vnd.oci.image.layer.v1.tar+gzip"
	mediaTypeDockerTar     = "application/vnd.docker.image.rootfs.diff.tar"
	mediaTypeDockerTarGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"

	// PublishHint is the fix every refusal of a layout ends with.
	PublishHint = "publish the module as a Wasm artifact: oras push REG/REPO:TAG --artifact-type application/vnd.wasm.config.v0+json module.wasm:application/wasm (or mcp-wasm push module.wasm oci://REG/REPO:TAG)"
)

// Bounds on a tar layer, which holds the module among other entries.
const (
	// MaxTarEntries is how many entries a tar layer may have.
	MaxTarEntries = 64
	// TarOverhead is how much larger than the module size limit a tar
	// layer may be, compressed or not: headers and small files beside
	// the module (a license, a README).
	TarOverhead = 1 << 20
)

// Packing says how the module sits in its layer.
type Packing int

const (
	// PackRaw: the layer is the module's bytes.
	PackRaw Packing = iota
	// PackTar: the layer is a tar (gzip-compressed or not, told by its
	// first bytes) holding exactly one .wasm file; or, when it starts
	// with the Wasm magic, the module itself (oras push of a file with
	// no media type labels it a tar).
	PackTar
)

// layerPacking returns how a layer of media type mt holds a module, or
// false for a type that cannot hold one.
func layerPacking(mt string) (Packing, bool) {
	switch mt {
	case MediaTypeWasm, mediaTypeWasmContent, mediaTypeModuleContent:
		return PackRaw, true
	case mediaTypeOCITar, mediaTypeOCITarGzip, mediaTypeDockerTar, mediaTypeDockerTarGzip:
		return PackTar, true
	}
	return 0, false
}

// isIndexType reports whether a manifest media type is an image index.
func isIndexType(mt string) bool { return mt == MediaTypeIndex || mt == mediaTypeDockerList }

// isManifestType reports whether mt is an image manifest type ("" is, as
// OCI allows the field to be left out).
func isManifestType(mt string) bool {
	return mt == "" || mt == MediaTypeManifest || mt == mediaTypeDockerManifest
}

// platform is an index entry's platform.
type platform struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
}

type indexEntry struct {
	Descriptor
	Platform *platform `json:"platform,omitempty"`
}

// wasmPlatform reports whether p is a Wasm platform: architecture wasm,
// os wasi (Docker+Wasm, buildx --platform wasi/wasm) or wasip1/wasip2.
func wasmPlatform(p *platform) bool {
	return p != nil && p.Architecture == "wasm" && (p.OS == "wasi" || p.OS == "wasip1" || p.OS == "wasip2")
}

// ChooseFromIndex returns the one manifest of the image index b made for
// a Wasm platform (wasi/wasm). It refuses an index with none, or with
// several, naming the platforms found.
func ChooseFromIndex(b []byte) (Descriptor, error) {
	var idx struct {
		SchemaVersion int          `json:"schemaVersion"`
		Manifests     []indexEntry `json:"manifests"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return Descriptor{}, fmt.Errorf("%w: image index is not JSON: %v", ErrNotModule, err)
	}
	var found []string
	var chosen []Descriptor
	for _, m := range idx.Manifests {
		p := "no platform"
		if m.Platform != nil {
			p = m.Platform.OS + "/" + m.Platform.Architecture
		}
		if len(found) < 8 {
			found = append(found, p)
		}
		if wasmPlatform(m.Platform) && isManifestType(m.MediaType) {
			chosen = append(chosen, m.Descriptor)
		}
	}
	switch {
	case len(chosen) == 0:
		return Descriptor{}, fmt.Errorf("%w: it is an image index with no wasi/wasm image (platforms: %s): %s", ErrNotModule, strings.Join(found, ", "), PublishHint)
	case len(chosen) > 1:
		return Descriptor{}, fmt.Errorf("%w: the image index has %d wasi/wasm images, and which one is the module is not guessed: %s", ErrNotModule, len(chosen), PublishHint)
	}
	d := chosen[0]
	if _, err := ParseDigest(d.Digest); err != nil {
		return Descriptor{}, fmt.Errorf("%w: the wasi/wasm image's %v", ErrNotModule, err)
	}
	if d.Size < 0 || d.Size > MaxManifestSize {
		return Descriptor{}, fmt.Errorf("%w: the wasi/wasm image's manifest is %d bytes, at most %d are read", ErrTooLarge, d.Size, MaxManifestSize)
	}
	return d, nil
}

// ExtractModule returns the module a layer holds, at most maxWasm bytes:
// the layer itself when packed raw; else the one .wasm regular file of the
// tar (gzip-compressed or not) it is, reading at most maxWasm+TarOverhead
// decompressed bytes and MaxTarEntries entries. A tar with no .wasm file,
// with two, with a .wasm that is a link or a device, or with a name that
// climbs out (..) is refused.
func ExtractModule(layer []byte, p Packing, maxWasm int64) ([]byte, error) {
	if p == PackRaw || bytes.HasPrefix(layer, wasmMagic) {
		if int64(len(layer)) > maxWasm {
			return nil, fmt.Errorf("%w: the module is %d bytes, the module size limit is %d: raise the limit (--max-module-size, limits.moduleSize) if you trust this module", ErrTooLarge, len(layer), maxWasm)
		}
		return layer, nil
	}
	var r io.Reader = bytes.NewReader(layer)
	what := "tar"
	if bytes.HasPrefix(layer, gzipMagic) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%w: the layer is not a gzip-compressed tar: %v: %s", ErrNotModule, err, PublishHint)
		}
		defer zr.Close()
		r, what = zr, "tar.gz"
	}
	limit := maxWasm + TarOverhead
	lr := &io.LimitedReader{R: r, N: limit + 1}
	wasm, err := extractTar(tar.NewReader(lr), maxWasm)
	if lr.N <= 0 {
		return nil, fmt.Errorf("%w: the layer's %s unpacks to more than %d bytes (the module size limit and %d more): %s", ErrTooLarge, what, limit, TarOverhead, PublishHint)
	}
	if err != nil {
		return nil, fmt.Errorf("layer (a %s): %w", what, err)
	}
	return wasm, nil
}

var (
	wasmMagic = []byte("\x00asm")
	gzipMagic = []byte{0x1f, 0x8b}
)

// extractTar reads a whole tar and returns its one .wasm file.
func extractTar(tr *tar.Reader, maxWasm int64) ([]byte, error) {
	var wasm []byte
	var wasmName string
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: not a readable tar: %v: %s", ErrNotModule, err, PublishHint)
		}
		if n >= MaxTarEntries {
			return nil, fmt.Errorf("%w: the tar has more than %d entries; a module's layer holds the module and little else: %s", ErrNotModule, MaxTarEntries, PublishHint)
		}
		name := strings.TrimPrefix(h.Name, "./")
		if strings.ContainsRune(name, 0) || strings.Contains("/"+name+"/", "/../") {
			return nil, fmt.Errorf("%w: the tar has an entry named %q, which climbs out of its root: %s", ErrNotModule, h.Name, PublishHint)
		}
		if !strings.HasSuffix(strings.ToLower(name), ".wasm") {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%w: the tar's %q is not a regular file (a link?): %s", ErrNotModule, path.Base(name), PublishHint)
		}
		if wasm != nil {
			return nil, fmt.Errorf("%w: the tar holds several .wasm files (%q, %q), and which one is the module is not guessed: %s", ErrNotModule, path.Base(wasmName), path.Base(name), PublishHint)
		}
		if h.Size > maxWasm {
			return nil, fmt.Errorf("%w: the tar's %q is %d bytes, the module size limit is %d: raise the limit (--max-module-size, limits.moduleSize) if you trust this module", ErrTooLarge, path.Base(name), h.Size, maxWasm)
		}
		b, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil || int64(len(b)) != h.Size {
			return nil, fmt.Errorf("%w: the tar's %q is cut short: %v", ErrNotModule, path.Base(name), err)
		}
		wasm, wasmName = b, name
	}
	if wasm == nil {
		return nil, fmt.Errorf("%w: the tar holds no .wasm file: %s", ErrNotModule, PublishHint)
	}
	return wasm, nil
}
