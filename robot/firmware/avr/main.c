/* cubebot rig firmware for the ATmega2560: docs/protocol.md, version 4.
 *
 * The layout follows GRBL's: config.h (the rig) and pins.h (the board), uart.c (the line and
 * the realtime stop byte), frame.c (framing and CRC-32), protocol.c (sequencing, replay,
 * queries, jobs), job.c (boot id in EEPROM, reset cause, the job), slots.c (the queue) and an
 * engine: motion.c (the stepper interrupt) or flipper.c (the servo actions). This file starts them and runs the main loop under the watchdog: if the
 * loop stalls for 250 ms the chip resets, and the next HELLO says RST=WDT.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#include "config.h"
#include "frame.h"
#include "job.h"
#include "motion.h"
#include "pins.h"
#include "protocol.h"
#include "uart.h"

/* MCUSR as it was at reset, saved before anything clears it; the watchdog is switched off
   at once, since after a watchdog reset it stays on with its shortest period */
static uint8_t reset_flags __attribute__((section(".noinit")));
void save_reset_flags(void) __attribute__((naked, used, section(".init3")));
void save_reset_flags(void) {
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

int main(void) {
    static framer_t framer;
    uint16_t blink = 0;
    motion_init();                          /* first: the drivers' ENABLE driven off */
    job_boot(reset_flags);
    uart_init();
    LED_DDR |= (1 << LED_BIT);
    sei();
    protocol_banner();
    wdt_enable(WDTO_250MS);
    for (;;) {
        wdt_reset();
        /* the LED: on while the motors turn, blinking while emergency-stopped */
        if (motion_estopped() ? (++blink & 0x4000) : motion_length() != 0)
            LED_PORT |= (1 << LED_BIT);
        else
            LED_PORT &= (uint8_t)~(1 << LED_BIT);
        if (motion_take_estop_notice())
            protocol_estop_notice();
        int16_t c = uart_get();
        if (c < 0)
            continue;
        uint8_t got = framer_feed(&framer, (uint8_t)c);
        if (got == FRAME_BAD) {
            protocol_resend();
        } else if (got == FRAME_READY) {
            uint32_t check;
            if (frame_check(framer.text, framer.len, &check) < 0)
                protocol_resend();
            else
                protocol_frame(framer.text, check);
        }
    }
}
