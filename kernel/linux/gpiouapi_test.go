package linux

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/gometal/gometal/kernel/gpio"
	"github.com/warthog618/go-gpiocdev/uapi"
)

// ioc is the kernel's _IOC encoding on arm64 (asm-generic/ioctl.h):
// direction, size, type, number.
func ioc(dir, nr, size uintptr) uint64 {
	return uint64(dir<<30 | size<<16 | 0xb4<<8 | nr)
}

const (
	iocWrite = 1
	iocRead  = 2
)

// TestGPIOUAPIAgainstGpiocdev checks this kernel's uAPI v2 structures,
// ioctl numbers and flags against go-gpiocdev's uapi package (what
// programs send): the same sizes, the same field offsets, and the
// ioctls numbered from those sizes.
func TestGPIOUAPIAgainstGpiocdev(t *testing.T) {
	pairs := []struct {
		ours, theirs any
	}{
		{gpioChipInfo{}, uapi.ChipInfo{}},
		{gpioLineInfo{}, uapi.LineInfoV2{}},
		{gpioLineConfig{}, uapi.LineConfig{}},
		{gpioLineRequest{}, uapi.LineRequest{}},
		{gpioLineValues{}, uapi.LineValues{}},
		{gpioLineEvent{}, uapi.LineEvent{}},
		{gpioInfoChanged{}, uapi.LineInfoChangedV2{}},
		{gpioAttr{}, uapi.LineAttribute{}},
		{gpioConfigAttr{}, uapi.LineConfigAttribute{}},
	}
	for _, p := range pairs {
		o, th := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		if o.Size() != th.Size() {
			t.Errorf("%v is %d bytes, go-gpiocdev's %v %d", o, o.Size(), th, th.Size())
			continue
		}
		// Named fields at the same offsets, in order (padding may be
		// named on one side and blank on the other).
		var ours, theirs []uintptr
		for i := 0; i < o.NumField(); i++ {
			ours = append(ours, o.Field(i).Offset)
		}
		for i := 0; i < th.NumField(); i++ {
			theirs = append(theirs, th.Field(i).Offset)
		}
		if !reflect.DeepEqual(ours, theirs) {
			t.Errorf("%v's field offsets %v, go-gpiocdev's %v", o, ours, theirs)
		}
	}
	for _, c := range []struct {
		name string
		got  uint64
		want uint64
	}{
		{"GPIO_GET_CHIPINFO_IOCTL", gpioGetChipInfo, ioc(iocRead, 1, unsafe.Sizeof(uapi.ChipInfo{}))},
		{"GPIO_GET_LINEINFO_UNWATCH_IOCTL", gpioGetLineInfoUnwatch, ioc(iocRead|iocWrite, 0x0c, 4)},
		{"GPIO_V2_GET_LINEINFO_IOCTL", gpioV2GetLineInfo, ioc(iocRead|iocWrite, 5, unsafe.Sizeof(uapi.LineInfoV2{}))},
		{"GPIO_V2_GET_LINEINFO_WATCH_IOCTL", gpioV2GetLineInfoWatch, ioc(iocRead|iocWrite, 6, unsafe.Sizeof(uapi.LineInfoV2{}))},
		{"GPIO_V2_GET_LINE_IOCTL", gpioV2GetLine, ioc(iocRead|iocWrite, 7, unsafe.Sizeof(uapi.LineRequest{}))},
		{"GPIO_V2_LINE_SET_CONFIG_IOCTL", gpioV2LineSetConfig, ioc(iocRead|iocWrite, 0x0d, unsafe.Sizeof(uapi.LineConfig{}))},
		{"GPIO_V2_LINE_GET_VALUES_IOCTL", gpioV2LineGetValues, ioc(iocRead|iocWrite, 0x0e, unsafe.Sizeof(uapi.LineValues{}))},
		{"GPIO_V2_LINE_SET_VALUES_IOCTL", gpioV2LineSetValues, ioc(iocRead|iocWrite, 0x0f, unsafe.Sizeof(uapi.LineValues{}))},
		{"GPIO_V2_LINE_ATTR_ID_FLAGS", gpioAttrFlags, uint64(uapi.LineAttributeIDFlags)},
		{"GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES", gpioAttrOutputValues, uint64(uapi.LineAttributeIDOutputValues)},
		{"GPIO_V2_LINE_ATTR_ID_DEBOUNCE", gpioAttrDebounce, uint64(uapi.LineAttributeIDDebounce)},
		{"GPIO_V2_LINE_FLAG_USED", uint64(gpio.Used), uint64(uapi.LineFlagV2Used)},
		{"GPIO_V2_LINE_FLAG_ACTIVE_LOW", uint64(gpio.ActiveLow), uint64(uapi.LineFlagV2ActiveLow)},
		{"GPIO_V2_LINE_FLAG_INPUT", uint64(gpio.Input), uint64(uapi.LineFlagV2Input)},
		{"GPIO_V2_LINE_FLAG_OUTPUT", uint64(gpio.Output), uint64(uapi.LineFlagV2Output)},
		{"GPIO_V2_LINE_FLAG_EDGE_RISING", uint64(gpio.EdgeRising), uint64(uapi.LineFlagV2EdgeRising)},
		{"GPIO_V2_LINE_FLAG_EDGE_FALLING", uint64(gpio.EdgeFalling), uint64(uapi.LineFlagV2EdgeFalling)},
		{"GPIO_V2_LINE_FLAG_OPEN_DRAIN", uint64(gpio.OpenDrain), uint64(uapi.LineFlagV2OpenDrain)},
		{"GPIO_V2_LINE_FLAG_OPEN_SOURCE", uint64(gpio.OpenSource), uint64(uapi.LineFlagV2OpenSource)},
		{"GPIO_V2_LINE_FLAG_BIAS_PULL_UP", uint64(gpio.BiasPullUp), uint64(uapi.LineFlagV2BiasPullUp)},
		{"GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN", uint64(gpio.BiasPullDown), uint64(uapi.LineFlagV2BiasPullDown)},
		{"GPIO_V2_LINE_FLAG_BIAS_DISABLED", uint64(gpio.BiasDisabled), uint64(uapi.LineFlagV2BiasDisabled)},
		{"GPIO_V2_LINE_FLAG_EVENT_CLOCK_REALTIME", uint64(gpio.EventClockRealtime), uint64(uapi.LineFlagV2EventClockRealtime)},
		{"GPIO_V2_LINE_EVENT_RISING_EDGE", gpio.EventRising, uint64(uapi.LineEventRisingEdge)},
		{"GPIO_V2_LINE_EVENT_FALLING_EDGE", gpio.EventFalling, uint64(uapi.LineEventFallingEdge)},
		{"GPIO_V2_LINE_CHANGED_REQUESTED", gpio.ChangedRequested, uint64(uapi.LineChangedRequested)},
		{"GPIO_V2_LINE_CHANGED_RELEASED", gpio.ChangedReleased, uint64(uapi.LineChangedReleased)},
		{"GPIO_V2_LINE_CHANGED_CONFIG", gpio.ChangedConfig, uint64(uapi.LineChangedConfig)},
		{"GPIO_V2_LINES_MAX", gpio.MaxLines, uint64(uapi.LinesMax)},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, go-gpiocdev %#x", c.name, c.got, c.want)
		}
	}
}
