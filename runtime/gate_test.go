package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGate(t *testing.T) {
	var g gate
	require.True(t, g.enter())
	require.True(t, g.enter())
	idle := g.close()
	require.False(t, g.enter(), "closed gate admits nothing")
	g.leave()
	select {
	case <-idle:
		t.Fatal("idle before the last call left")
	default:
	}
	g.leave()
	<-idle
	var empty gate
	<-empty.close()
}
