package wasmbin

// Encoding of the sections Instrument rewrites. Sections it does not change
// (memory, data count, data) are re-encoded from their decoded form too, so
// that the output is the canonical encoding of what was parsed.

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(body)))
	return append(out, body...)
}

func appendLimits(b []byte, min, max uint32, hasMax bool) []byte {
	if !hasMax {
		return appendU32(append(b, 0), min)
	}
	return appendU32(appendU32(append(b, 1), min), max)
}

func encodeTypes(types []FuncType) []byte {
	b := appendU32(nil, uint32(len(types)))
	for _, t := range types {
		b = append(b, 0x60)
		b = append(appendU32(b, uint32(len(t.Params))), t.Params...)
		b = append(appendU32(b, uint32(len(t.Results))), t.Results...)
	}
	return b
}

// encodeImports encodes function imports only: the callers refuse modules
// that import anything else before they get here (see Instrument).
func encodeImports(imports []Import) []byte {
	b := appendU32(nil, uint32(len(imports)))
	for _, im := range imports {
		b = appendName(appendName(b, im.Module), im.Name)
		b = appendU32(append(b, KindFunc), im.Type)
	}
	return b
}

func encodeU32s(v []uint32, fn func(uint32) uint32) []byte {
	b := appendU32(nil, uint32(len(v)))
	for _, x := range v {
		b = appendU32(b, fn(x))
	}
	return b
}

func encodeTables(tables []Table) []byte {
	b := appendU32(nil, uint32(len(tables)))
	for _, t := range tables {
		b = appendLimits(append(b, t.RefType), t.Min, t.Max, t.HasMax)
	}
	return b
}

func encodeMemories(mems []Table) []byte {
	b := appendU32(nil, uint32(len(mems)))
	for _, m := range mems {
		b = appendLimits(b, m.Min, m.Max, m.HasMax)
	}
	return b
}

func encodeGlobals(globals []Global, fn func(uint32) uint32) []byte {
	b := appendU32(nil, uint32(len(globals)))
	for _, g := range globals {
		mut := byte(0)
		if g.Mutable {
			mut = 1
		}
		b = append(append(b, g.Type, mut), rewriteConst(g.Init, fn)...)
	}
	return b
}

func encodeExports(exports []Export, fn func(uint32) uint32) []byte {
	b := appendU32(nil, uint32(len(exports)))
	for _, e := range exports {
		idx := e.Index
		if e.Kind == KindFunc {
			idx = fn(idx)
		}
		b = appendU32(append(appendName(b, e.Name), e.Kind), idx)
	}
	return b
}

func encodeElems(elems []Elem, fn func(uint32) uint32) []byte {
	b := appendU32(nil, uint32(len(elems)))
	for _, e := range elems {
		active, explicit, exprs := e.Flags&1 == 0, e.Flags&2 != 0, e.Flags&4 != 0
		b = appendU32(b, e.Flags)
		if active && explicit {
			b = appendU32(b, e.Table)
		}
		if active {
			b = append(b, e.Offset...)
		}
		if !active || explicit {
			b = append(b, e.Kind)
		}
		if !exprs {
			b = append(b, encodeU32s(e.Funcs, fn)...)
			continue
		}
		b = appendU32(b, uint32(len(e.Exprs)))
		for _, x := range e.Exprs {
			b = append(b, rewriteConst(x, fn)...)
		}
	}
	return b
}
