/* The flipper's engine: the sequencer of the queued actions (engine.h; the queue, its counters
 * and the stop button are slots.c's, motion.c is the stepper build's engine). Timer1 ticks
 * every millisecond; servo.c makes the pulses.
 *
 * An action runs as phases, each a wait of whole milliseconds at the end of which the next
 * servo position is set (a hobby servo moves by itself to the width it is given; the firmware
 * only waits the time the rig's model gives it):
 *
 *   COVERING    the cover is moving to where the action needs it (closed for a turn, open
 *               for a spin or a flip: the rig moves it by itself, docs/protocol.md 15.2)
 *   STROKING    the holder is moving by the action's angle, or the top is at the flip
 *               position
 *   FLIPPING    the top is on its way back to open (the flip's second half)
 *   RELEASING   after a turn, the holder releases the layer; when the next action needs the
 *               cover open, the cover starts opening now, so the two overlap as on CUBOTino
 *
 * The action counts as done at the end of its last phase. The holder's angle is tracked twice:
 * where it is commanded now, and where the queued actions will leave it -- the one ACT frames
 * are judged against. Pulses start with the first action, stop IDLE_OFF_MS after the last, and
 * stop at once on an emergency stop. State shared with the main loop is touched with interrupts
 * off.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <string.h>
#include <util/atomic.h>

#include "config.h"
#include "engine.h"
#include "motion.h"
#include "servo.h"

#define MS_TICKS ((uint16_t)(F_CPU / 8UL / 1000UL))    /* Timer1, prescaler 8 */
#define MIN_QUARTERS (HOLDER_MIN_DEG / 90)
#define MAX_QUARTERS (HOLDER_MAX_DEG / 90)

enum { IDLE, COVERING, STROKING, FLIPPING, RELEASING };

static volatile uint8_t phase;
static int8_t holder;                          /* quarters from home, as commanded now */
static int8_t planned;                         /* quarters once the queue is done */
static uint8_t cover_closed;                   /* as commanded now */
static uint16_t wait_left, cover_left, idle_left;

static uint16_t stroke_ms(uint16_t per_90, int8_t quarters) {
    return (quarters == 2 || quarters == -2)
        ? (uint16_t)((uint32_t)per_90 * HALF_TURN_PERCENT / 100U) : per_90;
}

static int8_t holder_change(const slot_t *s) {
    return s->verb == VERB_FLIP ? 0 : s->quarters;
}

static void cover_to(uint8_t closed) {
    if (cover_closed == closed)
        return;
    cover_closed = closed;
    servo_set(SERVO_TOP, closed ? TOP_CLOSED_US : TOP_OPEN_US);
    cover_left = COVER_MS;
}

/* interrupts off: the phase that ends now hands over to the next */
static void step(void);

void engine_start(const slot_t *slot) {
    servo_power(1);
    phase = COVERING;
    cover_to(slot->verb == VERB_TURN);
    wait_left = 0;
    step();
}

/* The cube's faces at the rig's positions U R F D L B, as the actions done since boot left a
   cube loaded U up and F in front (POSE's O=, protocol section 15.4). */
static char faces[7] = "URFDLB";

/* one quarter rotation of the whole cube: the face at cycle[k] goes to cycle[k + 1] */
static void carry(const char *cycle) {
    static const char positions[] = "URFDLB";
    uint8_t at[4];
    for (uint8_t k = 0; k < 4; k++)
        at[k] = (uint8_t)(strchr(positions, cycle[k]) - positions);
    char last = faces[at[3]];
    for (uint8_t k = 3; k > 0; k--)
        faces[at[k]] = faces[at[k - 1]];
    faces[at[0]] = last;
}

static void reorient(const slot_t *s) {
    if (s->verb == VERB_FLIP) {
        carry("DBUF");                         /* x': the front goes to the bottom */
    } else if (s->verb == VERB_SPIN) {         /* y per quarter: the front goes to the left */
        const char *cycle = s->quarters < 0 && s->quarters != -2 ? "RBLF" : "FLBR";
        for (int8_t q = (s->quarters == 2 || s->quarters == -2) ? 2 : 1; q > 0; q--)
            carry(cycle);
    }
}

static void finish(void) {
    reorient(slots_at(0));
    if (slots_retire(1)) {
        engine_start(slots_at(0));
        return;
    }
    phase = IDLE;
    idle_left = IDLE_OFF_MS;
}

static void step(void) {
    const slot_t *s = slots_at(0);
    switch (phase) {
    case COVERING:
        if (cover_left) {                      /* the cover is still moving */
            wait_left = cover_left;
            return;
        }
        phase = STROKING;
        if (s->verb == VERB_FLIP) {
            servo_set(SERVO_TOP, TOP_FLIP_US);
            wait_left = FLIP_MS / 2;
            return;
        }
        holder = (int8_t)(holder + s->quarters);
        servo_set(SERVO_HOLDER, (uint16_t)((int16_t)HOLDER_HOME_US
                                           + HOLDER_SIGN * holder * (int16_t)HOLDER_US_PER_90));
        wait_left = stroke_ms(s->verb == VERB_TURN ? TURN_MS : SPIN_MS, s->quarters);
        return;
    case STROKING:
        if (s->verb == VERB_FLIP) {
            phase = FLIPPING;
            servo_set(SERVO_TOP, TOP_OPEN_US);
            wait_left = FLIP_MS - FLIP_MS / 2;
            return;
        }
        if (s->verb == VERB_TURN) {
            phase = RELEASING;
            wait_left = RELEASE_MS;
            if (slots_waiting() > 1 && !slots_held() && slots_at(1)->verb != VERB_TURN)
                cover_to(0);                   /* the next action's cover opens meanwhile */
            return;
        }
        finish();
        return;
    default:                                   /* FLIPPING, RELEASING: the action is made */
        finish();
        return;
    }
}

void motion_init(void) {
    servo_init();                              /* first: the servos' pins low, no pulses */
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11);       /* CTC, prescaler 8: the 1 ms tick */
    OCR1A = MS_TICKS - 1;
    TIMSK1 = (1 << OCIE1A);
    slots_stop_button_init();
}

void motion_orientation(char *up, char *front) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        *up = faces[0];
        *front = faces[2];
    }
}

void motion_pose(int8_t *quarters, uint8_t *closed) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        *quarters = planned;
        uint8_t waiting = slots_waiting();
        if (waiting) {                         /* the last action queued sets the cover */
            *closed = slots_at((uint8_t)(waiting - 1))->verb == VERB_TURN;
        } else {
            *closed = cover_closed;
        }
    }
}

uint8_t engine_running(void) { return phase != IDLE; }

uint8_t engine_judge(const slot_t *slot) {
    int8_t after = (int8_t)(planned + holder_change(slot));
    return after < MIN_QUARTERS || after > MAX_QUARTERS
        ? PUSH_RANGE : PUSH_OK;                /* judged where the queue leaves the holder */
}

void engine_queued(const slot_t *slot) {
    planned = (int8_t)(planned + holder_change(slot));
}

void engine_dropped(void) {
    /* the action running finishes; nothing after it. Its holder stroke may not have begun
       yet (the cover still moving): the plan then still holds it */
    planned = holder;
    if (phase == COVERING)
        planned = (int8_t)(planned + holder_change(slots_at(0)));
}

int8_t engine_halt(void) {
    int8_t made = 0;
    servo_off_now();
    if (phase == RELEASING)                    /* the layer was turned: it counts */
        made = 1;
    else if (phase == STROKING || phase == FLIPPING)
        made = -1;                             /* a turn, spin or flip was cut short */
                                               /* (a cover cut short moved no cube) */
    phase = IDLE;
    planned = holder;                          /* where the holder was sent last */
    wait_left = cover_left = idle_left = 0;
    return made;
}

uint8_t motion_drivers_on(void) { return servo_powered(); }

ISR(TIMER1_COMPA_vect) {
    if (cover_left)
        cover_left--;                          /* the cover moves alongside the phases */
    if (phase == IDLE) {
        if (idle_left && !--idle_left)         /* idle long enough: the servos limp */
            servo_power(0);
        return;
    }
    if (wait_left && --wait_left)
        return;
    step();
}
