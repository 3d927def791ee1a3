//go:build !arm64

package sched

// Host tests play one core at a time: testSelf is "the calling core", and
// kicks are recorded instead of sent.
var (
	testSelf int
	kicked   []int
)

func self() *CPU    { return &CPUs[testSelf] }
func SelfID() int   { return testSelf }
func kick(core int) { kicked = append(kicked, core) }

// Fence is a full barrier between cores; host tests run one core.
func Fence() {}
