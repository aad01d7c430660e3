package mcpw

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendIntMember(t *testing.T) {
	ns := []int64{0, 1, 9, 10, 11, 99, 100, 1023, 1024, 9999, 10000, 123456789, 1e15 - 1, 1e15, 1e16 - 1, 1e16, 1<<63 - 1, -1, -1 << 63}
	for p := int64(1); p < 1e18; p *= 10 {
		ns = append(ns, p-1, p, p+1)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		ns = append(ns, int64(rng.Uint64()>>rng.IntN(64)))
	}
	for _, n := range ns {
		require.Equal(t, `,"n":`+strconv.FormatInt(n, 10), string(appendIntMember(nil, `,"n":`, n)))
	}
}

func TestAppendFloat(t *testing.T) {
	fs := []float64{0, 1, 0.5, 0.8, 0.25, 0.125, 0.001, 0.999, 0.1, 0.7, 0.01, 0.3, 1.5, 2, 0.0005, 1e-7, 1e21, 123.456, -0.5, math.Copysign(0, -1), math.Nextafter(0.8, 1)}
	for n := range 1001 {
		fs = append(fs, float64(n)/1000)
	}
	for _, f := range fs {
		got, ok := appendFloat(nil, f)
		require.True(t, ok)
		require.Equal(t, string(stdJSON(t, f)), string(got), "%v", f)
	}
}
