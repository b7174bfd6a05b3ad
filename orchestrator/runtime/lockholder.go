package runtime

import (
	"errors"
	"fmt"
	"time"
)

// Holder says who holds a lab's lock; it is written into the lock file so
// that a second command can name the first.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s (%q since %s)", h.PID, h.Host, h.Command, h.Since.UTC().Format(time.RFC3339))
}

// ErrLocked is wrapped by Acquire's error when another process holds the lock.
var ErrLocked = errors.New("lab is locked")
