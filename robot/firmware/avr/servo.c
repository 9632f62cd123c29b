/* The servos' pulses: Timer5 in fast PWM mode 14 (TOP = ICR5), prescaler 8 (2 MHz ticks), a
 * period of SERVO_PERIOD_US. The hardware sets OC5A and OC5B at the period's start and clears
 * each at its compare match, so the pulses cost no interrupt and no jitter.
 *
 * New widths and the outputs' connection (COM bits) are written only in the compare-C
 * interrupt, which comes after the longest pulse has ended and before the next period starts:
 * the first pulse after power-on and the last before power-off are whole, and a new width never
 * cuts or doubles a pulse. The chip double-buffers OCR5A/B in this mode, which would be enough
 * on a board; simavr 1.6 does not (a width written between the old and the new compare value
 * drew a second, short pulse: 445 us in the trace), and a timer written late is a board's
 * hazard too, so the firmware does not lean on the buffering. Disconnected, the pins are driven low
 * (PORTL bits cleared), which a servo reads as "no signal". Timer1, the stepper build's timer,
 * is left to the action sequencer's tick.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"
#include "pins.h"
#include "servo.h"

#define TICKS_PER_US (F_CPU / 8UL / 1000000UL)
#define PERIOD_TICKS ((uint16_t)(SERVO_PERIOD_US * TICKS_PER_US))
#define SWITCH_US 2600U             /* after every pulse: where outputs are (dis)connected */
#define SERVO_MASK ((1 << HOLDER_BIT) | (1 << TOP_BIT))
#define COM_BITS ((1 << COM5A1) | (1 << COM5B1))

_Static_assert(TICKS_PER_US == 2, "the servo timer expects 2 ticks a microsecond");
#define HOLDER_REACH_US (HOLDER_US_PER_90 * (HOLDER_MAX_DEG > -HOLDER_MIN_DEG \
                         ? HOLDER_MAX_DEG / 90 : -HOLDER_MIN_DEG / 90))
_Static_assert(HOLDER_HOME_US + HOLDER_REACH_US < SWITCH_US
               && TOP_FLIP_US < SWITCH_US && TOP_OPEN_US < SWITCH_US
               && TOP_CLOSED_US < SWITCH_US,
               "every pulse must end before the outputs are switched (SWITCH_US)");
_Static_assert(HOLDER_HOME_US > HOLDER_REACH_US + 500U,
               "the holder's shortest pulse must stay above 500 us");

static volatile uint8_t wanted;
static volatile uint16_t width_ticks[2];      /* for OCR5A, OCR5B at the next compare C */

static void at_next_switch(void) {
    TIFR5 = (1 << OCF5C);                      /* the next compare C, not a stale one */
    TIMSK5 |= (1 << OCIE5C);
}

void servo_init(void) {
    SERVO_PORT &= (uint8_t)~SERVO_MASK;        /* low: no pulses, the servos limp */
    SERVO_DDR |= SERVO_MASK;
    wanted = 0;
    TCCR5A = (1 << WGM51);                     /* mode 14, outputs disconnected */
    TCCR5B = (1 << WGM53) | (1 << WGM52) | (1 << CS51);
    ICR5 = PERIOD_TICKS - 1;
    OCR5C = SWITCH_US * TICKS_PER_US;
    servo_set(SERVO_HOLDER, HOLDER_HOME_US);
    servo_set(SERVO_TOP, TOP_OPEN_US);
}

void servo_set(uint8_t servo, uint16_t us) {
    /* interrupts off (the sequencer's tick, or start-up) */
    width_ticks[servo] = (uint16_t)(us * TICKS_PER_US - 1);   /* high for OCR + 1 ticks */
    at_next_switch();
}

void servo_power(uint8_t on) {
    wanted = on;
    at_next_switch();
}

void servo_off_now(void) {
    wanted = 0;
    TIMSK5 &= (uint8_t)~(1 << OCIE5C);
    TCCR5A &= (uint8_t)~COM_BITS;
    SERVO_PORT &= (uint8_t)~SERVO_MASK;
}

uint8_t servo_powered(void) { return wanted; }

ISR(TIMER5_COMPC_vect) {
    OCR5A = width_ticks[SERVO_HOLDER];         /* both pulses are over: safe to write */
    OCR5B = width_ticks[SERVO_TOP];
    if (wanted) TCCR5A |= COM_BITS;
    else TCCR5A &= (uint8_t)~COM_BITS;
    TIMSK5 &= (uint8_t)~(1 << OCIE5C);
}
