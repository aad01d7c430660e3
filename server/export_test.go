package server

import "time"

// Test hooks: settings no caller outside the tests needs.

// withNotifyDelay sets how long changes reported through
// Server.ResourcesUpdated and Server.ResourceListChanged are collected
// before clients are notified, each changed resource once. Defaults to
// DefaultNotifyDelay.
func (c Config) withNotifyDelay(d time.Duration) Config {
	c.notifyDelay = d
	return c
}

// withInstructions sets the instructions sent to clients in initialize and
// server/discover. Defaults to none.
func (c Config) withInstructions(s string) Config {
	c.instructions = s
	return c
}

// withStdioWriteTimeout sets how long a stdio client may leave a piece of
// a write untaken before its session ends. Defaults to
// DefaultWriteTimeout.
func (c Config) withStdioWriteTimeout(d time.Duration) Config {
	c.stdioWriteTimeout = d
	return c
}
