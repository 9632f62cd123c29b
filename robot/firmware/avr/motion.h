/* The move queue and the stepper interrupt: slots of one or two face turns, turned in order. */
#ifndef CUBEBOT_MOTION_H
#define CUBEBOT_MOTION_H

#include <stdint.h>

/* one plan slot: up to two turns of opposite faces, turned together */
typedef struct {
    uint8_t count;          /* turns in the slot: 1 or 2 */
    uint8_t face[2];        /* motor index 0..5 (RIG_FACES order) */
    int8_t quarters[2];     /* +1 clockwise, -1 counter-clockwise, 2 half turn */
} slot_t;

void motion_init(void);
/* queue a slot; returns 0 when the queue is full */
uint8_t motion_push(const slot_t *slot);
/* frames waiting or turning (the protocol's L) */
uint8_t motion_length(void);
/* move frames completed since boot (D), moves of the job completed (JD) */
uint16_t motion_done(void);
uint16_t motion_job_done(void);
void motion_job_reset(void);
/* finish the turn in progress, drop the rest (STOP) */
void motion_drop_queued(void);
/* stop now, mid-turn (the emergency stop, called from the receive interrupt);
   returns 1 when a turn was cut short */
uint8_t motion_halt(void);
/* hold: nothing new starts until released */
void motion_hold(uint8_t hold);

#endif
