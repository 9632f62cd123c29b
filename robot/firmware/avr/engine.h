/* Between the shared slot queue (slots.c) and a build's engine (motion.c for the steppers,
 * flipper.c for the servos). The engine makes the slots move; the queue keeps their order and
 * counts. Every function here is called with interrupts off. */
#ifndef CUBEBOT_ENGINE_H
#define CUBEBOT_ENGINE_H

#include <stdint.h>

#include "motion.h"

/* -- the engine's side, called by slots.c -- */

/* begin the slot at the head of the queue */
void engine_start(const slot_t *slot);
/* a slot is running (the head of the queue) */
uint8_t engine_running(void);
/* PUSH_OK, or why the engine cannot take the slot after the ones queued (PUSH_RANGE) */
uint8_t engine_judge(const slot_t *slot);
/* the slot was queued: account for where it will leave the mechanism */
void engine_queued(const slot_t *slot);
/* STOP dropped every slot after the running one */
void engine_dropped(void);
/* the emergency stop: halt at once, outputs off, nothing running; returns the moves the
   running slot made (it counts as done), 0 if none, -1 if a motion was cut short */
int8_t engine_halt(void);

/* -- the queue's side, for the engines -- */

/* the slot k places after the head (0: the one running) */
const slot_t *slots_at(uint8_t k);
/* slots waiting or running */
uint8_t slots_waiting(void);
/* a hold keeps anything new from starting */
uint8_t slots_held(void);
/* the running slot is done, having made ``moves`` moves: count it and take it off; returns 1
   when the next slot should start now */
uint8_t slots_retire(uint8_t moves);
/* the stop button's input and interrupt (an emergency stop if held at power-on) */
void slots_stop_button_init(void);

#endif
