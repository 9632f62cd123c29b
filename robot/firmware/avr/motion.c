/* The move queue and the stepper interrupt (Timer1, compare match A).
 *
 * Each tick of the timer makes at most one microstep on every motor of the slot being turned,
 * so two opposite faces turn together. The tick period ramps linearly from START_RATE_HZ to
 * STEP_RATE_HZ over RAMP_STEPS microsteps and back down at the end, and a turn is followed by
 * SETTLE_MS of rest before the next slot starts. Counters shared with the main loop are
 * read and written with interrupts off.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "motion.h"
#include "rig.h"

#define MICROSTEPS_PER_QUARTER ((uint16_t)STEPS_PER_QUARTER * MICROSTEPS)
#define TIMER_HZ (F_CPU / 8UL)  /* Timer1 with a prescaler of 8: 2 MHz at 16 MHz */

static slot_t queue[QUEUE_DEPTH];
static volatile uint8_t head, count;        /* queue[head] is the slot turning (if busy) */
static volatile uint8_t busy;               /* a slot is turning or settling */
static volatile uint8_t held;               /* nothing new starts */
static volatile uint16_t steps_left[2], steps_total, steps_done;
static volatile uint8_t step_mask;          /* STEP bits of the slot's motors */
static volatile uint16_t settle_ticks;
static volatile uint16_t done_frames, job_moves;

static uint16_t period_for(uint16_t from_edge) {
    /* the ramp: START_RATE_HZ at the ends of a turn, STEP_RATE_HZ in the middle */
    uint32_t rate = STEP_RATE_HZ;
    if (from_edge < RAMP_STEPS)
        rate = START_RATE_HZ + (STEP_RATE_HZ - START_RATE_HZ) * from_edge / RAMP_STEPS;
    return (uint16_t)(TIMER_HZ / rate);
}

static void start_next(void) {
    /* called with interrupts off: begin the slot at the head of the queue */
    const slot_t *s = &queue[head];
    uint8_t dir = DIR_PORT;
    step_mask = 0;
    steps_total = 0;
    for (uint8_t i = 0; i < 2; i++) {
        steps_left[i] = 0;
        if (i >= s->count)
            continue;
        int8_t q = s->quarters[i];
        uint8_t bit = (uint8_t)(1 << s->face[i]);
        steps_left[i] = (uint16_t)(q < 0 ? -q : q) * MICROSTEPS_PER_QUARTER;
        if (steps_left[i] > steps_total)
            steps_total = steps_left[i];
        step_mask |= bit;
        if (q < 0) dir |= bit; else dir &= (uint8_t)~bit;
    }
    DIR_PORT = dir;
    steps_done = 0;
    settle_ticks = 0;
    busy = 1;
    OCR1A = period_for(0);
    TCNT1 = 0;
}

void motion_init(void) {
    STEP_DDR |= 0x3F;
    DIR_DDR |= 0x3F;
    ENABLE_DDR |= (1 << ENABLE_BIT);
    ENABLE_PORT &= (uint8_t)~(1 << ENABLE_BIT);  /* drivers on */
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11);          /* CTC, prescaler 8 */
    OCR1A = period_for(0);
    TIMSK1 = (1 << OCIE1A);
}

uint8_t motion_push(const slot_t *slot) {
    uint8_t ok = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (count < QUEUE_DEPTH) {
            queue[(uint8_t)(head + count) % QUEUE_DEPTH] = *slot;
            count++;
            ok = 1;
            if (!busy && !held)
                start_next();
        }
    }
    return ok;
}

uint8_t motion_length(void) {
    uint8_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = count; }
    return n;
}

uint16_t motion_done(void) {
    uint16_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = done_frames; }
    return n;
}

uint16_t motion_job_done(void) {
    uint16_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = job_moves; }
    return n;
}

void motion_job_reset(void) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { job_moves = 0; }
}

void motion_drop_queued(void) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        count = busy ? 1 : 0;  /* the slot turning finishes; nothing after it starts */
    }
}

uint8_t motion_halt(void) {
    /* from the receive interrupt: interrupts are already off */
    uint8_t cut = busy && settle_ticks == 0 && steps_done < steps_total;
    if (busy && settle_ticks) {               /* the turn was made: it counts */
        done_frames++;
        job_moves += queue[head].count;
    }
    busy = 0;
    count = 0;
    step_mask = 0;
    STEP_PORT &= (uint8_t)~0x3F;
    return cut;
}

void motion_hold(uint8_t hold) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        held = hold;
        if (!hold && !busy && count)
            start_next();
    }
}

ISR(TIMER1_COMPA_vect) {
    if (!busy)
        return;
    if (settle_ticks) {                       /* resting after a turn */
        if (--settle_ticks)
            return;
        const slot_t *s = &queue[head];
        done_frames++;
        job_moves += s->count;
        head = (uint8_t)(head + 1) % QUEUE_DEPTH;
        count--;
        busy = 0;
        if (count && !held)
            start_next();
        return;
    }
    uint8_t pulse = 0;
    for (uint8_t i = 0; i < 2; i++) {
        if (steps_left[i]) {
            steps_left[i]--;
            pulse |= (uint8_t)(1 << queue[head].face[i]);
        }
    }
    pulse &= step_mask;
    STEP_PORT |= pulse;
    _delay_us(2);                             /* A4988/DRV8825: STEP high for >= 1.9 us */
    STEP_PORT &= (uint8_t)~pulse;
    steps_done++;
    if (steps_done >= steps_total) {          /* the turn is made: settle, then the next */
        OCR1A = (uint16_t)(TIMER_HZ / 1000UL); /* 1 ms ticks */
        settle_ticks = SETTLE_MS;
        return;
    }
    uint16_t from_end = steps_total - steps_done;
    OCR1A = period_for(steps_done < from_end ? steps_done : from_end);
}
