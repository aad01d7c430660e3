package runtime

import (
	"errors"
	"fmt"
)

// wasmImport is one entry of a module's import section.
type wasmImport struct {
	module, name string
	kind         byte // 0 func, 1 table, 2 memory, 3 global, 4 tag
}

var importKinds = [...]string{"function", "table", "memory", "global", "tag"}

func (i wasmImport) kindName() string {
	if int(i.kind) < len(importKinds) {
		return importKinds[i.kind]
	}
	return "unknown"
}

var errTruncated = errors.New("truncated")

// reader is a bounds-checked cursor over module bytes.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errTruncated
	}
	r.pos++
	return r.b[r.pos-1], nil
}

func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("LEB128 too long")
}

func (r *reader) bytes(n uint32) ([]byte, error) {
	if uint64(r.pos)+uint64(n) > uint64(len(r.b)) {
		return nil, errTruncated
	}
	r.pos += int(n)
	return r.b[r.pos-int(n) : r.pos], nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

// scanImports walks the section headers of a module (after checkHeader) and
// decodes its import section. A section that overruns the file is reported
// as truncated, so a cut-off download gets ErrNotModule, not a compiler error.
func scanImports(module []byte) ([]wasmImport, error) {
	r := &reader{b: module, pos: 8}
	var imports []wasmImport
	for r.pos < len(r.b) {
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			return nil, truncated(err)
		}
		body, err := r.bytes(size)
		if err != nil {
			return nil, truncated(err)
		}
		if id == 2 {
			if imports, err = parseImportSection(body); err != nil {
				return nil, fmt.Errorf("%w: import section: %w", ErrNotModule, err)
			}
		}
	}
	return imports, nil
}

func truncated(err error) error {
	return fmt.Errorf("%w: section overruns the file (%w): the file is truncated or corrupt; rebuild or re-download it", ErrNotModule, err)
}

func parseImportSection(b []byte) ([]wasmImport, error) {
	r := &reader{b: b}
	n, err := r.u32()
	if err != nil || n > 100000 {
		return nil, errors.New("bad import count")
	}
	out := make([]wasmImport, 0, n)
	for range n {
		var im wasmImport
		if im.module, err = r.name(); err != nil {
			return nil, err
		}
		if im.name, err = r.name(); err != nil {
			return nil, err
		}
		if im.kind, err = r.byte(); err != nil {
			return nil, err
		}
		if err := skipImportDesc(r, im.kind); err != nil {
			return nil, err
		}
		out = append(out, im)
	}
	return out, nil
}

func skipImportDesc(r *reader, kind byte) error {
	var err error
	switch kind {
	case 0: // type index
		_, err = r.u32()
	case 1: // reftype + limits
		if _, err = r.byte(); err == nil {
			err = skipLimits(r)
		}
	case 2:
		err = skipLimits(r)
	case 3: // valtype + mutability
		if _, err = r.byte(); err == nil {
			_, err = r.byte()
		}
	case 4: // exception tag: attribute + type index
		if _, err = r.byte(); err == nil {
			_, err = r.u32()
		}
	default:
		return fmt.Errorf("unknown import kind %d", kind)
	}
	return err
}

func skipLimits(r *reader) error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if _, err := r.u32(); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.u32()
	}
	return err
}

// checkImportKinds rejects imports of anything but functions before compiling.
func checkImportKinds(module []byte) error {
	imports, err := scanImports(module)
	if err != nil {
		return err
	}
	for _, im := range imports {
		if im.kind != 0 {
			return fmt.Errorf("%w: module imports %s %s.%s: providers may import only functions; define and export their own memory, tables and globals", ErrForbiddenImport, im.kindName(), quote(im.module), quote(im.name))
		}
	}
	return nil
}
