package mcpw

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
)

// filler sets every field of a value from an entropy source, so random
// tests and the fuzz target share one generator and a new abi field is
// exercised without anyone listing it.
type filler struct {
	next func() uint64
	all  bool     // set every field (TestEncoderCoversEveryField)
	pool []string // if set, every string comes from it
	// byField, if set, overrides pool for the fields it names.
	byField map[string][]string
	field   string // the struct field being filled
}

func randomFiller(seed uint64) *filler {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &filler{next: rng.Uint64}
}

// bytesFiller draws from data, then zeros: what a fuzzer can steer.
func bytesFiller(data []byte) *filler {
	return &filler{next: func() uint64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return binary.LittleEndian.Uint64(b[:])
	}}
}

func (f *filler) intn(n int) int { return int(f.next() % uint64(n)) }

func (f *filler) str() string {
	if f.all {
		return "x"
	}
	if p := f.byField[f.field]; p != nil {
		return p[f.intn(len(p))]
	}
	if f.pool != nil {
		return f.pool[f.intn(len(f.pool))]
	}
	switch f.intn(4) {
	case 0:
		return ""
	case 1:
		return stringSeeds[f.intn(len(stringSeeds))]
	}
	b := make([]byte, f.intn(40))
	for i := range b {
		b[i] = byte(f.next())
		if f.intn(2) == 0 {
			b[i] = 'a' + b[i]%26
		}
	}
	return string(b)
}

func (f *filler) float() float64 {
	if f.all {
		return 0.5
	}
	switch f.intn(4) {
	case 0:
		return 0
	case 1:
		return float64(f.intn(1000)) / 1000
	case 2:
		return math.Ldexp(float64(f.intn(1<<20)+1), f.intn(160)-100) // 'e' format at both ends
	}
	x := math.Float64frombits(f.next())
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return -1.5e-7
	}
	return x
}

func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.all || f.intn(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.next()) >> f.intn(64))
		if f.all {
			v.SetInt(7)
		}
	case reflect.Float64:
		v.SetFloat(f.float())
	case reflect.Pointer:
		if f.all || (depth < 6 && f.intn(3) > 0 && (f.pool == nil || f.intn(2) == 0)) {
			p := reflect.New(v.Type().Elem())
			f.fill(p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		n := f.intn(4) - 1 // -1: nil
		if f.pool != nil {
			n = f.intn(3) // checks: mostly short, often valid
		}
		if f.all {
			n = 2
		}
		if n >= 0 && depth < 6 {
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				f.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("json") == "-" {
				continue // never on the wire
			}
			f.field = v.Type().Field(i).Name
			f.fill(v.Field(i), depth+1)
		}
	default:
		panic("filler: unsupported kind " + v.Kind().String())
	}
}
