// Package store keeps string values in memory, each with an optional expiry.
package store

import (
	"errors"
	"sync"
	"time"
)

// ErrNotFound is returned when a key is absent or has expired.
var ErrNotFound = errors.New("store: key not found")

// Level is how much the store reports about what it does.
type Level uint32

// The levels, from quiet to chatty.
const (
	Quiet Level = iota
	Verbose
)

// Clock tells the time; tests pass a fake one.
type Clock = func() time.Time

// Store is the interface every backend implements.
type Store interface {
	// Get returns the value saved under key.
	Get(key string) (string, error)
	// Put saves a value under key until the ttl passes.
	Put(key, value string, ttl time.Duration) error
	// Delete forgets key; deleting an absent key is not an error.
	Delete(key string)
}

type entry struct {
	value   string
	expires time.Time
}

// MemStore is a Store held in a map guarded by a mutex.
type MemStore struct {
	mu      sync.Mutex
	entries map[string]entry
	now     Clock
	level   Level
}

// NewMemStore makes an empty MemStore that reports at the given level.
func NewMemStore(level Level) *MemStore {
	return &MemStore{entries: map[string]entry{}, now: time.Now, level: level}
}

// Get returns the live value of key, or ErrNotFound.
func (m *MemStore) Get(key string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || expired(e, m.now()) {
		return "", ErrNotFound
	}
	return e.value, nil
}

// Put saves value under key; a zero ttl picks DefaultTTL's.
func (m *MemStore) Put(key, value string, ttl time.Duration) error {
	if key == "" {
		return errors.New("store: empty key")
	}
	if ttl == 0 {
		ttl = DefaultTTL(key)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[key] = entry{value: value, expires: m.now().Add(ttl)}
	return nil
}

// Delete forgets key.
func (m *MemStore) Delete(key string) {
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
}

func expired(e entry, now time.Time) bool {
	return !e.expires.IsZero() && now.After(e.expires)
}

// DefaultTTL picks how long a value lives when the caller gives no ttl.
var DefaultTTL = func(key string) time.Duration {
	if len(key) > 32 {
		return time.Minute
	}
	return time.Hour
}

// String names the level for log lines.
func (l Level) String() string {
	if l == Verbose {
		return "verbose"
	}
	return "quiet"
}
