//go:build !linux

package dirwatch

import "errors"

// newInotify is Linux only; elsewhere the watcher polls.
func newInotify([]root, Config, *pending) (backend, error) {
	return nil, errors.New("inotify is Linux only")
}
