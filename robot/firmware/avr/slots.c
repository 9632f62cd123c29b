/* The slot queue both builds share, with its counters, the hold, the emergency stop's
 * bookkeeping and the stop button. What a slot does is the engine's (motion.c: stepper turns,
 * flipper.c: servo actions); this file only keeps the order and the counts:
 *
 *   - slots wait in a ring of QUEUE_DEPTH; the head is the one running, if the engine runs
 *   - D (frames done since boot) and JD (moves of the job) count a slot when it is retired
 *   - STOP lets the running slot finish and drops the rest; a hold keeps anything new from
 *     starting; the emergency stop halts the engine at once and drops everything
 *
 * The engine is called with interrupts off (engine.h). State shared with the main loop is
 * touched with interrupts off.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"
#include "engine.h"
#include "motion.h"
#include "pins.h"

static slot_t queue[QUEUE_DEPTH];
static volatile uint8_t head, count;           /* queue[head] is the slot running (if any) */
static volatile uint8_t held, estopped, out_of_line, notice;
static volatile uint16_t done_frames, job_moves;

const slot_t *slots_at(uint8_t k) {
    uint8_t at = (uint8_t)(head + k);
    if (at >= QUEUE_DEPTH) at = (uint8_t)(at - QUEUE_DEPTH);
    return &queue[at];
}

uint8_t slots_waiting(void) { return count; }

uint8_t slots_held(void) { return held; }

uint8_t slots_retire(uint8_t moves) {
    done_frames++;
    job_moves += moves;
    if (++head == QUEUE_DEPTH)
        head = 0;
    count--;
    return count && !held;
}

void slots_stop_button_init(void) {
    STOP_DDR &= (uint8_t)~(1 << STOP_BIT);     /* the stop button: input with pull-up */
    STOP_PORT |= (1 << STOP_BIT);
    EICRB = (EICRB & (uint8_t)~(3 << ISC40)) | (2 << ISC40);  /* INT4 on a falling edge */
    EIFR = (1 << INTF4);
    EIMSK |= (1 << INT4);
    if (!(STOP_PIN & (1 << STOP_BIT)))         /* held at power-on: stopped from the start */
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { motion_estop(); }
}

uint8_t motion_push(const slot_t *slot) {
    uint8_t result = PUSH_OK;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (estopped) {
            result = PUSH_ESTOP;
        } else if ((result = engine_judge(slot)) != PUSH_OK) {
            /* the engine refused it (the flipper's holder out of range) */
        } else if (count >= QUEUE_DEPTH) {
            result = PUSH_FULL;
        } else {
            uint8_t tail = (uint8_t)(head + count);
            if (tail >= QUEUE_DEPTH) tail = (uint8_t)(tail - QUEUE_DEPTH);
            queue[tail] = *slot;
            count++;
            engine_queued(slot);
            if (!engine_running() && !held)
                engine_start(&queue[head]);
        }
    }
    return result;
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
        count = engine_running() ? 1 : 0;      /* the slot running finishes; nothing after */
        engine_dropped();
    }
}

void motion_hold(uint8_t hold) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        held = hold;
        if (!hold && !engine_running() && count && !estopped)
            engine_start(&queue[head]);
    }
}

void motion_estop(void) {
    /* from an interrupt, or with interrupts off */
    if (estopped)
        return;
    int8_t made = engine_halt();
    if (made < 0)
        out_of_line = 1;                       /* a motion was cut short */
    else if (made > 0) {                       /* the running slot's motion was made */
        done_frames++;
        job_moves += (uint8_t)made;
    }
    count = 0;
    estopped = 1;
    notice = 1;
}

uint8_t motion_estopped(void) { return estopped; }

uint8_t motion_out_of_line(void) { return out_of_line; }

uint8_t motion_take_estop_notice(void) {
    uint8_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = notice; notice = 0; }
    return n;
}

uint8_t motion_clear_estop(void) {
    if (!(STOP_PIN & (1 << STOP_BIT)))
        return 0;                              /* the button is still pressed */
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { estopped = 0; out_of_line = 0; }
    return 1;
}

ISR(INT4_vect) {
    motion_estop();                            /* the stop button acts as the stop byte */
}
