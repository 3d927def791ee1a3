// Package bcm2711 drives the parts of the Raspberry Pi 4's SoC that the
// kernel uses beyond the Arm ones (GIC-400, generic timer, PL011): the
// mini UART of the AUX block, which the Pi's header pins 8 and 10 carry
// with enable_uart=1, the power-management block's watchdog, which is
// how the board resets, and the mailbox's property channel to the
// VideoCore's firmware (the board's revision, serial, memory split,
// temperature), the BSC I2C masters, the SPI master and the GPIO block.
//
// Reference: "BCM2711 ARM Peripherals" (Raspberry Pi Ltd, 2022), chapter
// 2 "Auxiliaries" for the mini UART. The PM block is not in that manual;
// its registers are the ones Linux's drivers/watchdog/bcm2835_wdt.c uses.
// Addresses come from the device tree (brcm,bcm2835-aux-uart,
// brcm,bcm2835-pm-wdt and brcm,bcm2835-mbox), never from here.
package bcm2711
