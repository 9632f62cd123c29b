/* The stepper engine: the stepper interrupt (Timer1, compare match A, 2 MHz ticks) that turns
 * the queued slots' faces.
 *
 * A slot's turns share one speed profile: the longer turn sets the pace and steps on every
 * tick, the shorter one steps when a Bresenham accumulator overflows (a DDA, as GRBL does), so
 * both start, ramp down and stop together and neither stops at full speed (U2 D). The profile
 * is constant acceleration ACCEL_SPS2 from rest up to MAX_SPEED_SPS and the mirror image down:
 * the time of step i from rest is sqrt(2 i / a), so the ticks between steps come from a table
 * computed once at start-up, and the interrupt only looks them up -- no division, no
 * multiplication, whatever the step rate. After a turn the slot rests SETTLE_MS; the drivers
 * are switched on for the first turn and off IDLE_OFF_MS after the last, and at once on an
 * emergency stop. The queue, its counters and the stop button are slots.c's, shared with
 * the flipper build; this file is the stepper engine (engine.h). State shared with the main
 * loop is touched with interrupts off.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <math.h>
#include <util/delay.h>

#include "config.h"
#include "engine.h"
#include "motion.h"
#include "pins.h"

#define MICROSTEPS_PER_QUARTER ((uint16_t)STEPS_PER_QUARTER * MICROSTEPS)
#define TIMER_HZ (F_CPU / 8UL)                 /* prescaler 8: 2 MHz at 16 MHz */
#define CRUISE_TICKS ((uint16_t)(TIMER_HZ / MAX_SPEED_SPS))
#define MS_TICKS ((uint16_t)(TIMER_HZ / 1000UL))
/* steps to reach cruise speed from rest: v^2 / 2a, and one more */
#define RAMP_STEPS ((uint16_t)(MAX_SPEED_SPS * MAX_SPEED_SPS / (2UL * ACCEL_SPS2) + 2UL))

_Static_assert(2ULL * TIMER_HZ * TIMER_HZ / ACCEL_SPS2 < 65535ULL * 65535ULL,
               "the first step's interval does not fit Timer1: raise ACCEL_SPS2");
_Static_assert((uint32_t)MICROSTEPS_PER_QUARTER * 2UL < 65535UL,
               "a half turn's microsteps must fit 16 bits");

enum { IDLE, TURNING, SETTLING };

static uint16_t ramp[RAMP_STEPS];              /* ticks between steps i and i+1 from rest */
static uint16_t ramp_len;                      /* entries slower than cruise */

static volatile uint8_t phase;
static volatile uint8_t drivers;
static uint16_t steps_total, steps_done, minor_steps, accumulator;
static uint8_t major_bit, minor_bit;
static uint16_t settle_left, idle_left;

static void ramp_init(void) {
    /* t_i = sqrt(2 i / a) seconds after the start; intervals never below the cruise's */
    const float k = sqrtf(2.0f / (float)ACCEL_SPS2) * (float)TIMER_HZ;
    float before = 0.0f;
    uint16_t i;
    for (i = 0; i < RAMP_STEPS; i++) {
        float after = k * sqrtf((float)(i + 1));
        float ticks = after - before;
        before = after;
        if (ticks <= (float)CRUISE_TICKS)
            break;
        ramp[i] = (uint16_t)(ticks + 0.5f);
    }
    ramp_len = i;
}

static void drivers_set(uint8_t on) {
    if (on) ENABLE_PORT &= (uint8_t)~(1 << ENABLE_BIT);   /* low = on */
    else ENABLE_PORT |= (1 << ENABLE_BIT);
    drivers = on;
}

static uint16_t turn_steps(int8_t quarters) {
    return quarters == 2 ? 2 * MICROSTEPS_PER_QUARTER : MICROSTEPS_PER_QUARTER;
}

void engine_start(const slot_t *s) {
    uint8_t dir = DIR_PORT, big = 0;
    for (uint8_t i = 0; i < s->count; i++) {
        uint8_t bit = (uint8_t)(1 << s->face[i]);
        if (s->quarters[i] < 0) dir |= bit; else dir &= (uint8_t)~bit;
    }
    DIR_PORT = dir;
    if (s->count == 2 && turn_steps(s->quarters[1]) > turn_steps(s->quarters[0]))
        big = 1;
    steps_total = turn_steps(s->quarters[big]);
    major_bit = (uint8_t)(1 << s->face[big]);
    minor_bit = s->count == 2 ? (uint8_t)(1 << s->face[1 - big]) : 0;
    minor_steps = s->count == 2 ? turn_steps(s->quarters[1 - big]) : 0;
    accumulator = steps_total >> 1;
    steps_done = 0;
    drivers_set(1);
    phase = TURNING;
    OCR1A = ramp_len ? ramp[0] : CRUISE_TICKS;
    TCNT1 = 0;
}

void motion_init(void) {
    ENABLE_PORT |= (1 << ENABLE_BIT);          /* drivers off before the pin is driven */
    ENABLE_DDR |= (1 << ENABLE_BIT);
    drivers = 0;
    STEP_PORT &= (uint8_t)~STEP_MASK;
    STEP_DDR |= STEP_MASK;
    DIR_DDR |= STEP_MASK;
    ramp_init();
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11);       /* CTC, prescaler 8 */
    OCR1A = MS_TICKS;
    TIMSK1 = (1 << OCIE1A);
    slots_stop_button_init();
}

uint8_t engine_running(void) { return phase != IDLE; }

uint8_t engine_judge(const slot_t *slot) {
    (void)slot;                                /* protocol.c checked the faces and turns */
    return PUSH_OK;
}

void engine_queued(const slot_t *slot) { (void)slot; }

void engine_dropped(void) {}

int8_t engine_halt(void) {
    int8_t made = 0;
    STEP_PORT &= (uint8_t)~STEP_MASK;
    drivers_set(0);
    if (phase == TURNING && steps_done)
        made = -1;                             /* a turn was cut short */
    if (phase == SETTLING)                     /* the turn was made: it counts */
        made = (int8_t)slots_at(0)->count;
    phase = IDLE;
    idle_left = 0;
    OCR1A = MS_TICKS;
    return made;
}

uint8_t motion_drivers_on(void) { return drivers; }

ISR(TIMER1_COMPA_vect) {
    if (phase == TURNING) {
        uint8_t pulse = major_bit;
        accumulator += minor_steps;
        if (accumulator >= steps_total) {      /* the shorter turn's step is due */
            accumulator -= steps_total;
            pulse |= minor_bit;
        }
        STEP_PORT |= pulse;
        _delay_us(2);                          /* A4988/DRV8825: STEP high for >= 1.9 us */
        STEP_PORT &= (uint8_t)~pulse;
        steps_done++;
        if (steps_done >= steps_total) {       /* the turn is made: settle, then the next */
            phase = SETTLING;
            settle_left = SETTLE_MS;
            OCR1A = MS_TICKS;
            return;
        }
        uint16_t to_end = steps_total - 1 - steps_done;
        uint16_t i = steps_done < to_end ? steps_done : to_end;
        OCR1A = i < ramp_len ? ramp[i] : CRUISE_TICKS;
        return;
    }
    if (phase == SETTLING) {
        if (settle_left && --settle_left)
            return;
        if (slots_retire(slots_at(0)->count)) {
            engine_start(slots_at(0));
            return;
        }
        phase = IDLE;
        idle_left = IDLE_OFF_MS;
        return;
    }
    if (drivers && idle_left && !--idle_left)  /* idle long enough: drivers off */
        drivers_set(0);
}
