//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on dir's bondvenue.lock for the life of
// the process (or until release): SQLite is one process's database, and a
// second serve on the same data directory must not start. The kernel
// drops the lock when the process dies, kill -9 included.
func lockDir(dir string) (release func() error, err error) {
	f, err := os.OpenFile(filepath.Join(dir, "bondvenue.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrDirLocked{Dir: dir}
		}
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	return f.Close, nil
}
