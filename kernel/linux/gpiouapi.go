package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/gpio"
)

// The GPIO character device's ABI, uAPI v2 (include/uapi/linux/gpio.h):
// golang.org/x/sys/unix has none of it, so the numbers and structures
// are here with the header they come from, in a file the host builds:
// gpiouapi_test.go checks them against go-gpiocdev's own definitions
// (its uapi package), which programs use. The line flags are
// kernel/gpio's Flags, the same bits.

// gpioMajor is the chips' major: Linux allocates it at boot (the Pi's
// kernel gets 254, the first dynamic one); go-gpiocdev compares it with
// /sys/bus/gpio/devices/gpiochipN/dev, so any number works that both
// agree on.
const gpioMajor = 254

// The ioctls: _IOR/_IOWR(0xB4, nr, the structure).
const (
	gpioGetChipInfo        = 0x8044b401 // GPIO_GET_CHIPINFO_IOCTL, struct gpiochip_info
	gpioGetLineInfoUnwatch = 0xc004b40c // GPIO_GET_LINEINFO_UNWATCH_IOCTL, __u32
	gpioV2GetLineInfo      = 0xc100b405 // GPIO_V2_GET_LINEINFO_IOCTL, struct gpio_v2_line_info
	gpioV2GetLineInfoWatch = 0xc100b406 // GPIO_V2_GET_LINEINFO_WATCH_IOCTL
	gpioV2GetLine          = 0xc250b407 // GPIO_V2_GET_LINE_IOCTL, struct gpio_v2_line_request
	gpioV2LineSetConfig    = 0xc110b40d // GPIO_V2_LINE_SET_CONFIG_IOCTL, struct gpio_v2_line_config
	gpioV2LineGetValues    = 0xc010b40e // GPIO_V2_LINE_GET_VALUES_IOCTL, struct gpio_v2_line_values
	gpioV2LineSetValues    = 0xc010b40f // GPIO_V2_LINE_SET_VALUES_IOCTL
)

// Line attributes (GPIO_V2_LINE_ATTR_ID_*), and their bound.
const (
	gpioAttrFlags        = 1
	gpioAttrOutputValues = 2
	gpioAttrDebounce     = 3
	gpioNumAttrsMax      = 10 // GPIO_V2_LINE_NUM_ATTRS_MAX
)

// gpioChipInfo is struct gpiochip_info.
type gpioChipInfo struct {
	Name  [gpio.NameLen]byte
	Label [gpio.NameLen]byte
	Lines uint32
}

// gpioAttr is struct gpio_v2_line_attribute: an id and a 64-bit value
// (the flags, the output values, or the debounce period in µs).
type gpioAttr struct {
	ID    uint32
	_     uint32
	Value uint64
}

// gpioLineInfo is struct gpio_v2_line_info.
type gpioLineInfo struct {
	Name     [gpio.NameLen]byte
	Consumer [gpio.NameLen]byte
	Offset   uint32
	NumAttrs uint32
	Flags    uint64
	Attrs    [gpioNumAttrsMax]gpioAttr
	Padding  [4]uint32
}

// gpioConfigAttr is struct gpio_v2_line_config_attribute: an attribute
// and the request's lines it applies to.
type gpioConfigAttr struct {
	Attr gpioAttr
	Mask uint64
}

// gpioLineConfig is struct gpio_v2_line_config.
type gpioLineConfig struct {
	Flags    uint64
	NumAttrs uint32
	Padding  [5]uint32
	Attrs    [gpioNumAttrsMax]gpioConfigAttr
}

// gpioLineRequest is struct gpio_v2_line_request.
type gpioLineRequest struct {
	Offsets         [gpio.MaxLines]uint32
	Consumer        [gpio.NameLen]byte
	Config          gpioLineConfig
	NumLines        uint32
	EventBufferSize uint32
	Padding         [5]uint32
	Fd              int32
}

// gpioLineValues is struct gpio_v2_line_values.
type gpioLineValues struct {
	Bits, Mask uint64
}

// gpioLineEvent is struct gpio_v2_line_event.
type gpioLineEvent struct {
	Timestamp uint64
	ID        uint32
	Offset    uint32
	Seqno     uint32
	LineSeqno uint32
	_         [6]uint32
}

// gpioInfoChanged is struct gpio_v2_line_info_changed.
type gpioInfoChanged struct {
	Info      gpioLineInfo
	Timestamp uint64
	EventType uint32
	_         [5]uint32
}

// The sizes the ioctl numbers encode, checked at compile time.
var (
	_ [68 - unsafe.Sizeof(gpioChipInfo{})]struct{}
	_ [unsafe.Sizeof(gpioChipInfo{}) - 68]struct{}
	_ [256 - unsafe.Sizeof(gpioLineInfo{})]struct{}
	_ [unsafe.Sizeof(gpioLineInfo{}) - 256]struct{}
	_ [272 - unsafe.Sizeof(gpioLineConfig{})]struct{}
	_ [unsafe.Sizeof(gpioLineConfig{}) - 272]struct{}
	_ [592 - unsafe.Sizeof(gpioLineRequest{})]struct{}
	_ [unsafe.Sizeof(gpioLineRequest{}) - 592]struct{}
	_ [48 - unsafe.Sizeof(gpioLineEvent{})]struct{}
	_ [unsafe.Sizeof(gpioLineEvent{}) - 48]struct{}
	_ [288 - unsafe.Sizeof(gpioInfoChanged{})]struct{}
	_ [unsafe.Sizeof(gpioInfoChanged{}) - 288]struct{}
)
