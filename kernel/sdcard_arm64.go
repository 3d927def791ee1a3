package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/sdhci"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/block"
)

// The Raspberry Pi 4's SD card. On the board the slot is on the BCM2711's
// EMMC2 controller ("brcm,bcm2711-emmc2" in the device tree; Linux binds
// sdhci-iproc to it), and the older Arasan controller ("brcm,bcm2835-
// sdhci") serves the Wi-Fi chip over SDIO. QEMU 10's raspi4b models both
// but puts the card of -drive if=sd on the Arasan one (its GPIO block
// routes the card by pins 48-53's function, as bcm2835_gpio does for the
// Pi 1-3), so both are tried, EMMC2 first: the first that has an SD
// memory card is mmc0, the card mmcblk0.

// sdControllers are the device-tree compatibles of the SD host
// controllers tried, in order.
var sdControllers = [...]string{"brcm,bcm2711-emmc2", "brcm,bcm2835-sdhci"}

// SDCard is the card in the slot, Ready once initialised.
var SDCard sdhci.Card

// initSDCard brings up the card and logs it as Linux does ("mmc0: new
// SDHC card at address aaaa", "mmcblk0: mmc0:aaaa SD08G 7.40 GiB"). A
// controller with no card, or with something else than an SD memory card
// (the Wi-Fi chip's SDIO), is passed over in silence; a card that fails
// to come up is one line saying why.
func initSDCard() {
	for _, compat := range sdControllers {
		for n := dtb.FindCompatible(-1, compat); n >= 0; n = dtb.FindCompatible(n, compat) {
			addr, ok := enabledDevice(n)
			if !ok {
				continue
			}
			switch e := SDCard.Init(cpu.KVA(addr), timer.Freq()); e {
			case sdhci.OK:
				logSDCard()
				if d, ok := block.AddMMC(SDCard.Blocks, false); ok {
					addDisk(d)
				}
				return
			case sdhci.ErrNoCard, sdhci.ErrNotSD:
			default:
				if Info("mmc0: card did not come up: ") {
					Puts(e.String())
					Puts(" (command ")
					PutDec(int64(SDCard.LastCmd))
					Puts(", error bits ")
					PutHex(uint64(SDCard.LastErr))
					Puts(")")
					InfoEnd()
				}
			}
		}
	}
}

// logSDCard logs the card Init brought up (its partitions: addDisk).
func logSDCard() {
	if Info("mmc0: new ") {
		if SDCard.HighCap {
			Puts("SDHC")
		} else {
			Puts("SD")
		}
		Puts(" card at address ")
		putHexDigits(uint64(SDCard.RCA()), 4)
		InfoEnd()
	}
	if Info("mmcblk0: mmc0:") {
		putHexDigits(uint64(SDCard.RCA()), 4)
		Puts(" ")
		name := SDCard.Name()
		PutBytes(name[:])
		Puts(" ")
		putMiB(SDCard.Blocks * sdhci.BlockSize)
		InfoEnd()
	}
}

// putMiB prints a size in MiB with one decimal.
func putMiB(bytes uint64) {
	tenths := bytes * 10 >> 20
	PutDec(int64(tenths / 10))
	Puts(".")
	PutDec(int64(tenths % 10))
	Puts(" MiB")
}
