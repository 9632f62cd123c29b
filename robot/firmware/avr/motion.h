/* The move queue and the stepper interrupt: slots of one or two face turns, turned in order,
 * the drivers' power, and the emergency stop (byte, button) that halts everything. */
#ifndef CUBEBOT_MOTION_H
#define CUBEBOT_MOTION_H

#include <stdint.h>

#ifdef RIG_KIND_FLIPPER
/* the flipper build (flipper.c) keeps this interface with actions in the queue's slots */
enum { VERB_FLIP, VERB_SPIN, VERB_TURN };
typedef struct {
    uint8_t verb;           /* VERB_FLIP, VERB_SPIN or VERB_TURN */
    int8_t quarters;        /* the holder's stroke: +1, -1, +2, -2 (+ clockwise from above) */
} slot_t;
#else
/* one plan slot: one turn, or two turns of opposite faces turned together */
typedef struct {
    uint8_t count;          /* turns in the slot: 1 or 2 */
    uint8_t face[2];        /* motor index 0..5 (RIG_FACES order) */
    int8_t quarters[2];     /* +1 clockwise, -1 counter-clockwise, 2 half turn */
} slot_t;
#endif

/* PUSH_RANGE: an action that would take the holder out of its range (flipper only) */
enum { PUSH_OK, PUSH_FULL, PUSH_ESTOP, PUSH_RANGE };

/* first thing at start-up: drivers off, pins, the ramp table, the timer, the stop input */
void motion_init(void);
/* queue a slot: PUSH_OK, PUSH_FULL, or PUSH_ESTOP when emergency-stopped (checked with
   interrupts off, so a stop arriving while the frame was decoded is never overtaken); on the
   flipper also PUSH_RANGE, judged against the holder's angle once the queue is done */
uint8_t motion_push(const slot_t *slot);
#ifdef RIG_KIND_FLIPPER
/* the holder (quarters from home) and the cover once the accepted actions are done */
void motion_pose(int8_t *quarters, uint8_t *cover_closed);
/* the cube's faces now up and in front (a cube loaded U up, F in front) */
void motion_orientation(char *up, char *front);
#endif
/* frames waiting or turning (the protocol's L) */
uint8_t motion_length(void);
/* move frames completed since boot (D), moves of the job completed (JD) */
uint16_t motion_done(void);
uint16_t motion_job_done(void);
void motion_job_reset(void);
/* finish the turn in progress, drop the rest (STOP) */
void motion_drop_queued(void);
/* hold: nothing new starts until released */
void motion_hold(uint8_t hold);
/* the emergency stop, from an interrupt: motors stop mid-turn, queue dropped, drivers off */
void motion_estop(void);
uint8_t motion_estopped(void);
/* an emergency stop cut a turn short (a layer may be out of line) */
uint8_t motion_out_of_line(void);
/* 1 once after each emergency stop: the main loop sends the notice */
uint8_t motion_take_estop_notice(void);
/* end the emergency stop; returns 0 (and changes nothing) while the stop button is held */
uint8_t motion_clear_estop(void);
/* the drivers (stepper) or the servos' pulses (flipper) are on */
uint8_t motion_drivers_on(void);

#endif
