package scenario

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// MaxRepetitions is the most repetitions a scenario (its repetitions key,
// or labctl run --repetitions) asks for.
const MaxRepetitions = 100

// topRepetitions is a top-level repetitions key of a block mapping, with
// its value and any comment after it; topName the name key every scenario
// has, which a text that is a block mapping at the top has at column 0.
var (
	topRepetitions = regexp.MustCompile(`(?m)^repetitions[ \t]*:.*$`)
	topName        = regexp.MustCompile(`(?m)^name[ \t]*:`)
)

// WithRepetitions is s with every variant run n times (labctl run
// --repetitions), as if its file said repetitions: n: the text the record
// keeps says so (the key's line replaced, or added at the end), and the
// scenario is read again from that text, so that every check a file's
// repetitions go through (the range, the matrix's size) applies to the
// flag as well. Errors are bad input (exit 2) and name the flag.
func (s *Spec) WithRepetitions(n int) (*Spec, error) {
	if n < 1 || n > MaxRepetitions {
		return nil, exitcode.Usagef("--repetitions %d is out of range: use 1 to %d (repetition r runs at seed + r)", n, MaxRepetitions)
	}
	if points := s.matrixSize(); points*n > MaxVariants {
		return nil, exitcode.Usagef("--repetitions %d: scenario %s's matrix makes %d variants (its exclude list aside), so %d runs of each make %d, more than the %d labctl runs at once: use --repetitions %d or fewer", n, s.Name, points, n, points*n, MaxVariants, max(MaxVariants/points, 1))
	}
	if !topName.MatchString(string(s.src)) {
		// A flow mapping ({name: x, ...}) takes no added line.
		return nil, exitcode.Usagef("--repetitions %d: scenario %s is not written as a block mapping (key: value lines), so labctl cannot add repetitions to its text: set repetitions: %d in the file instead", n, s.Name, n)
	}
	line := fmt.Sprintf("repetitions: %d # labctl run --repetitions %d", n, n)
	text := string(s.src)
	if topRepetitions.MatchString(text) {
		text = topRepetitions.ReplaceAllLiteralString(text, line)
	} else {
		text = strings.TrimRight(text, "\n") + "\n" + line + "\n"
	}
	out, err := Parse(s.file, []byte(text))
	if err != nil {
		return nil, exitcode.Usagef("--repetitions %d: %v", n, err)
	}
	if out.Repetitions != n {
		return nil, exitcode.Usagef("--repetitions %d: scenario %s still runs %d after its text was given the key: set repetitions: %d in the file instead", n, s.Name, out.Repetitions, n)
	}
	out.Source = s.Source
	return out, nil
}
